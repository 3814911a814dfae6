// A span's input or output as people read it: a conversation, a JSON tree, or text.
import { chatMessagesOf, type ChatMessage, structureOf } from '../messages';
import { JsonView } from './json-view';
import { TextBlock } from './text-block';

const Message = ({ m }: { m: ChatMessage }) => (
  <li class={`message role-${/^[a-z_]+$/.test(m.role) ? m.role : 'other'}`}>
    <div class="message-role">{m.role}</div>
    {m.text !== '' ? <TextBlock text={m.text} /> : null}
    {m.toolCalls.map((c) => {
      const args = structureOf(c.arguments);
      return (
        <div class="tool-call">
          <span class="tool-name">{c.name}</span>
          {args ? <JsonView value={args} label={`${c.name} arguments`} /> : <TextBlock text={c.arguments} />}
        </div>
      );
    })}
    {m.other.map((part) => {
      const structure = structureOf(part);
      return structure ? <JsonView value={structure} label="part" /> : <TextBlock text={String(part)} />;
    })}
  </li>
);

export const ValueView = ({ value, label }: { value: unknown; label: string }) => {
  if (value === null || value === undefined || value === '') return <p class="muted">Nothing recorded</p>;
  const messages = chatMessagesOf(value);
  if (messages)
    return (
      <ol class="conversation" aria-label={`${label}: ${messages.length} message${messages.length === 1 ? '' : 's'}`}>
        {messages.map((m) => (
          <Message m={m} />
        ))}
      </ol>
    );
  const structure = structureOf(value);
  if (structure) return <JsonView value={structure} label={label} />;
  return <TextBlock text={typeof value === 'string' ? value : JSON.stringify(value)} />;
};
