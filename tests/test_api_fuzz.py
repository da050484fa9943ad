"""Every REST operation, called with inputs generated from the API's own OpenAPI schema.

Whatever a client sends, valid or not, the server must answer with a status the schema
declares for that operation, in the declared content type, with a body of the declared
shape, and never with a 5xx. Examples are derandomized so a failure reproduces on every
run; the generation is bounded per operation to keep the test fast.

schemathesis drives it: it reads OpenAPI 3.1 (what django-ninja emits), generates valid
and invalid requests with hypothesis, and checks the answers against the schema, all in
process through the WSGI app.
"""

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig

from dewee.api import api as ninja_api
from memory.models import Entity
from memory.services import MemoryInput, start_session, store_memories
from tests.factories import make_agent, make_key, make_workspace, state

EXAMPLES_PER_OPERATION = 25
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

_config = SchemathesisConfig()
_config.projects.default.generation.update(
    max_examples=EXAMPLES_PER_OPERATION, deterministic=True, database="none"
)
schema = schemathesis.openapi.from_dict(ninja_api.get_openapi_schema(), config=_config)
_app = WSGIHandler()


# The seeded workspace's ids, by the name of the path parameter that takes them; filled by
# the fixture before any example is drawn.
SEEDED: dict[str, list] = {}


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    """Half the time, each id in the path is one that exists, so operations get past the
    lookup to their real work; the other half keeps the generated (mostly missing) id."""
    names = [name for name in path_parameters or () if SEEDED.get(name)]
    if not names:
        return st.just(path_parameters)
    real = st.fixed_dictionaries({name: st.sampled_from(SEEDED[name]) for name in names})
    return st.one_of(st.just(path_parameters), real.map(lambda ids: {**path_parameters, **ids}))


@pytest.fixture
def fuzz_key(db):
    """A key of a workspace whose agent holds memories, entities, a session and a fact.
    Django's per-request connection handling is off (as in Django's own test client), so
    every request runs inside the test's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    workspace = make_workspace("fuzz")
    agent = make_agent(workspace, "fuzz-bot")
    key = make_key(workspace)
    memories = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Caroline: I moved to Boston"),
            MemoryInput(content="Melanie: Boston, Caroline? Nice"),
        ],
    )
    session = start_session(agent=agent, user="u1")
    fact = state(agent, "Acme").fact
    SEEDED.update(
        agent_id=[agent.agent_id],
        memory_id=[m.pk for m in memories],
        target_id=[m.pk for m in memories],
        entity_id=list(Entity.objects.filter(agent=agent).values_list("pk", flat=True)),
        session_id=[session.pk],
        fact_id=[fact.pk],
    )
    yield key
    SEEDED.clear()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
def test_every_operation_answers_as_its_schema_says(case, fuzz_key):
    case.call_and_validate(app=_app, headers={"Authorization": f"Bearer {fuzz_key}"}, checks=CHECKS)
