"""HTTP views of the api app, one module per area."""
