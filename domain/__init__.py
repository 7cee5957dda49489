"""Pure rules: the game protocol, the games, the match lifecycle and the bots' policies.

Nothing here may import infrastructure (flask, redis, rq, marshmallow); tests/unit/test_architecture.py
and the import-linter contract in pyproject.toml keep it so.
"""
