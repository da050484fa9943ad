"""Conversations as they were said: the order of a session's memories (conversations) and
the summary of one that ends (summaries). Sessions' writes are memory.services.sessions."""
