"""Services hold the rules. REST routes, tools and the CLI call these and only translate."""
