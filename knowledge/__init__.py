"""What Dewee knows, memories and facts read together: the context for a turn, a person's
page, export and erasure, an entity's page. Above both apps: it imports memory and facts,
and neither imports it."""
