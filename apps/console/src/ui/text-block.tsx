// Long text, shown in part until asked for whole.
import { useState } from 'preact/hooks';
import { truncate } from '../format';

const LIMIT = 1200;

export const TextBlock = ({ text }: { text: string }) => {
  const [whole, setWhole] = useState(false);
  const long = text.length > LIMIT;
  return (
    <div class="text-block">
      <pre class="text" dir="auto">
        {long && !whole ? truncate(text, LIMIT) : text}
      </pre>
      {long ? (
        <button type="button" class="link-button" aria-expanded={whole} onClick={() => setWhole(!whole)}>
          {whole ? 'Show less' : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      ) : null}
    </div>
  );
};
