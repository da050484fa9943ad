"""Understanding text as people write it: whose words a message holds (attribution), and the
normalisers and vocabularies that every reader of text shares. This package imports none of
the apps (memory, facts, tenancy): they call it."""
