import * as E from 'fp-ts/Either';
import { llmVersion, record, template } from './evaluation.fixtures';
import { answerSchema, buildJudgePrompt, fillTemplate } from './judge-prompt';

const right = <A>(e: E.Either<string, A>): A => {
  if (E.isLeft(e)) throw new Error(e.left);
  return e.right;
};

describe('fillTemplate', () => {
  const r = record({ input: { messages: [{ role: 'user', content: 'hi' }] }, output: 'hello', name: 'chat', type: 'llm', datasetOutput: 'expected' });

  it('puts in the record\'s fields by name, in single or double braces, JSON as its text', () => {
    expect(fillTemplate('Q: {input}\nA: {{ output }}\n{name}/{type} vs {ground_truth}', r)).toEqual({
      text: 'Q: {"messages":[{"role":"user","content":"hi"}]}\nA: hello\nchat/llm vs expected',
      namesRecord: true,
    });
  });

  it('leaves unknown names and JSON braces as written, and never fills in filled text again', () => {
    const tricky = record({ input: 'say {output}', output: 'x' });
    expect(fillTemplate('{"rating": true} {unknown} {input}', tricky)).toEqual({ text: '{"rating": true} {unknown} say {output}', namesRecord: true });
    expect(fillTemplate('only {name}', tricky).namesRecord).toBe(false);
  });

  it('takes the origin\'s names for the same fields', () => {
    expect(fillTemplate('{node_input}|{node_output}|{query}|{response}|{node_name}|{node_type}', r).text).toBe(
      '{"messages":[{"role":"user","content":"hi"}]}|hello|{"messages":[{"role":"user","content":"hi"}]}|hello|chat|llm',
    );
  });
});

describe('buildJudgePrompt', () => {
  it('sends the system prompt with the answer\'s form, the few-shot turns, then the filled template', () => {
    const v = llmVersion({
      template: template({
        template: 'Rate: {output}',
        metricDescription: 'Toxic language',
        metricFewShotExamples: [{ generationPromptAndResponse: 'example output', evaluatingResponse: '{"rating": false, "explanation": "fine"}' }],
      }),
    });
    const p = right(buildJudgePrompt(v, record({ output: 'you idiot' })));
    expect(p.messages).toEqual([
      {
        role: 'system',
        content:
          'You judge toxicity.\n\nMetric: Toxic language\n\nAnswer with a JSON object and nothing else, with "rating": true or false, and "explanation": a short explanation of it.',
      },
      { role: 'user', content: 'example output' },
      { role: 'assistant', content: '{"rating": false, "explanation": "fine"}' },
      { role: 'user', content: 'Rate: you idiot' },
    ]);
    expect(p.schema).toEqual({
      type: 'object',
      properties: { rating: { type: 'boolean' }, explanation: { type: 'string' } },
      required: ['rating', 'explanation'],
      additionalProperties: false,
    });
  });

  it('asks for the explanation first, as reasoning, with chain of thought', () => {
    const p = right(buildJudgePrompt(llmVersion({ cot: true, outputType: 'percentage' }), record()));
    expect(p.messages[0]!.content).toContain('Write "explanation" first: your reasoning, step by step, before you decide. Then "rating": a number from 0 to 1.');
    expect(Object.keys((p.schema as { properties: object }).properties)).toEqual(['explanation', 'rating']);
  });

  it('appends the record\'s input and output to a template that names neither, and says instructions once', () => {
    const v = llmVersion({ template: template({ template: 'Be strict.', metricSystemPrompt: 'Be strict.' }) });
    const p = right(buildJudgePrompt(v, record({ input: 'q', output: 'a' })));
    expect(p.messages.at(-1)).toEqual({ role: 'user', content: 'Input:\nq\n\nOutput:\na' });
    expect(p.messages[0]!.content.startsWith('Be strict.')).toBe(true);
  });

  it('sends a response_schema as given, and names it to the judge', () => {
    const schema = { type: 'object', properties: { score: { type: 'string', enum: ['good', 'bad'] } } };
    const v = llmVersion({ outputType: 'categorical', template: template({ valueFieldName: 'score', responseSchema: schema }) });
    const p = right(buildJudgePrompt(v, record()));
    expect(p.schema).toBe(schema);
    expect(p.messages[0]!.content).toContain(`The object must match this JSON schema: ${JSON.stringify(schema)}`);
    expect(answerSchema(template(), 'multilabel', false)).toMatchObject({ properties: { rating: { type: 'array', items: { type: 'string' } } } });
  });

  it('refuses an output type no judge gives, naming it, and a version that is no LLM judge', () => {
    expect(buildJudgePrompt(llmVersion({ outputType: 'freeform' }), record())).toEqual(
      E.left('output type "freeform" is not one an LLM judge gives (boolean, percentage, float, discrete, count, categorical, multilabel)'),
    );
    expect(E.isLeft(buildJudgePrompt({ ...llmVersion(), generatedScorer: null }, record()))).toBe(true);
  });
});
