"""The application layer: the use cases of cardroom over the event store and the domain.
It knows no HTTP and no RQ: the API and the workers call it; bootstrap wires it."""
