"""The games Django app: event store, command services, projections and the rules engine."""
