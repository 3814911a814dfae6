// A CSV export's fields: RFC 4180 quoting, and text a spreadsheet would run as a formula made inert.
import { csvField } from './record-export';

describe('csvField', () => {
  it('writes text after a quote mark when a spreadsheet would read it as a formula (= + - @, a tab or a CR first)', () => {
    expect(['=HYPERLINK("http://x.test","click")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'].map(csvField)).toEqual([
      `"'=HYPERLINK(""http://x.test"",""click"")"`,
      "'+1+1",
      "'-2+3",
      "'@SUM(A1)",
      "'\t=1",
      `"'\r=1"`,
    ]);
  });

  it('leaves other text, numbers of any sign and JSON values as they are, quoted when they must be', () => {
    expect(['plain', 'a=b', ' =x', 'with, comma', 'say "hi"', 'two\nlines', -3, 0.5, true, null, ['=x'], { a: '-b' }].map(csvField)).toEqual([
      'plain',
      'a=b',
      ' =x',
      '"with, comma"',
      '"say ""hi"""',
      '"two\nlines"',
      '-3',
      '0.5',
      'true',
      '',
      '"[""=x""]"',
      '"{""a"":""-b""}"',
    ]);
  });
});
