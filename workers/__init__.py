"""RQ jobs and the worker entry point. Thin: every job calls the service."""
