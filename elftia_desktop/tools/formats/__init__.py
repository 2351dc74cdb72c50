"""One converter module per provider."""
