"""What the site shows: a game as JSON, the pages, the statistics, the
answers and the OpenAPI schema, the installable app."""
