import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  answerAskBody,
  CREATE_RUN,
  createRunBody,
  jsonSchemaOf,
} from '../../src/serve/request-schemas.js';
import { openApiDocument } from '../../src/serve/openapi.js';

describe('request body schemas', () => {
  it('accept the bodies the API documents, with null and "" for fields not given', () => {
    assert.ok(createRunBody.check({ workflow_id: 'w' }));
    assert.ok(
      createRunBody.check({
        workflow_id: 'w',
        input: null,
        budget: 0.5,
        budget_hard: true,
        model: '',
        working_directory: 'sub',
        environment: { A_1: 'x' },
      }),
    );
    assert.ok(answerAskBody.check({}));
    assert.ok(answerAskBody.check({ response: 'yes' }));
  });

  it('name the wrong field of a malformed body', () => {
    assert.equal(
      createRunBody.problem({ workflow_id: '' }, 'the body'),
      'workflow_id is ""; it must be a non-empty string',
    );
    assert.equal(
      createRunBody.problem({ workflow_id: 'w', environment: [] }, 'the body'),
      'environment is []; it must be an object of variable names to strings',
    );
    assert.equal(
      createRunBody.problem({ workflow_id: 'w', environment: { '1A': 'x' } }, 'the body'),
      'environment is {"1A":"x"}; it must be an object of variable names to strings',
    );
    assert.ok(createRunBody.check({ workflow_id: 'w', budget_hard: null }));
    assert.equal(
      createRunBody.problem({ workflow_id: 'w', budget_hard: 'yes' }, 'the body'),
      'budget_hard is "yes"; it must be true or false or null',
    );
    assert.equal(
      answerAskBody.problem({ response: 3 }, 'the body'),
      'response is 3; it must be a string',
    );
  });

  it('are JSON Schema without the message keywords, and /openapi.json holds them', () => {
    const json = JSON.stringify(jsonSchemaOf(CREATE_RUN));
    assert.doesNotMatch(json, /"must"|"opaque"/);
    assert.match(json, /"minimum":0/);
    const doc = openApiDocument('1') as { components: { schemas: Record<string, unknown> } };
    assert.deepEqual(doc.components.schemas.CreateRun, jsonSchemaOf(CREATE_RUN));
    const createRun = doc.components.schemas.CreateRun as { properties: Record<string, unknown> };
    assert.match(JSON.stringify(createRun.properties.budget_hard), /"type":"boolean"/);
  });
});
