"""The site: JSON API, pages and static files (``jielong serve``)."""
