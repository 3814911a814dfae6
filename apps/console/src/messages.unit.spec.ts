import { chatMessagesOf, previewOf, structureOf } from './messages';

describe('reading inputs and outputs', () => {
  it('reads a list of chat messages, text or parts', () => {
    expect(
      chatMessagesOf([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'image_url', image_url: { url: 'x' } }] },
      ]),
    ).toEqual([
      { role: 'system', text: 'Be brief.', toolCalls: [], other: [] },
      { role: 'user', text: 'Hello', toolCalls: [], other: [{ type: 'image_url', image_url: { url: 'x' } }] },
    ]);
  });

  it('reads a request body, a completion and one message, also as JSON text', () => {
    expect(chatMessagesOf({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })?.map((m) => m.text)).toEqual(['hi']);
    expect(chatMessagesOf({ choices: [{ message: { role: 'assistant', content: 'yo' } }] })?.map((m) => [m.role, m.text])).toEqual([['assistant', 'yo']]);
    expect(chatMessagesOf('{"role": "assistant", "content": "ok"}')?.map((m) => m.text)).toEqual(['ok']);
    // GenAI conventions: parts with `content`.
    expect(chatMessagesOf([{ role: 'user', parts: [{ type: 'text', content: 'q' }] }])?.map((m) => m.text)).toEqual(['q']);
  });

  it('reads tool calls', () => {
    const [m] = chatMessagesOf([{ role: 'assistant', content: null, tool_calls: [{ id: '1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] }])!;
    expect(m).toEqual({ role: 'assistant', text: '', toolCalls: [{ name: 'search', arguments: '{"q":"x"}' }], other: [] });
  });

  it('takes nothing else for a conversation', () => {
    for (const v of ['plain text', 42, null, [], [{ role: 'user', content: 'a' }, { text: 'no role' }], { messages: 'no' }, '{not json'])
      expect(chatMessagesOf(v)).toBeUndefined();
  });

  it('finds structures in values and JSON text', () => {
    expect(structureOf({ a: 1 })).toEqual({ a: 1 });
    expect(structureOf('[1,2]')).toEqual([1, 2]);
    expect(structureOf('text')).toBeUndefined();
    expect(structureOf('"quoted"')).toBeUndefined();
  });

  it('previews a value on one line', () => {
    expect(previewOf([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }])).toBe('assistant: a');
    expect(previewOf({ k: 1 })).toBe('{"k":1}');
    expect(previewOf(null)).toBe('');
  });
});
