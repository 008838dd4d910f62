import { CHANNEL_KEYS } from '@dea/contract';
import { parse as parseCsv } from 'csv-parse/sync';
import { getNodeValue, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';

/** The columns of a CSV file and the fields of a JSON file: nothing else is taken. */
export const IMPORT_FIELDS = [
  'username',
  'fullName',
  'locale',
  'timeZone',
  'group',
  ...CHANNEL_KEYS,
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

const isImportField = (name: string): name is ImportField =>
  (IMPORT_FIELDS as readonly string[]).includes(name);

/**
 * One user of the file as written: each field present in the file is its text, or null when the
 * cell is empty (JSON: "" or null), meaning "none". A field the file does not have is absent.
 */
export interface ImportRow {
  /** The line of the file where the row starts (1 is the first line). */
  line: number;
  fields: Partial<Record<ImportField, string | null>>;
  /** What is wrong with the row as written (a field of the wrong type, an unknown field). */
  problems: string[];
}

/** The file as a whole cannot be read: nothing of it is taken. */
export class ImportFileError extends Error {}

const knownFields = `the known fields: ${IMPORT_FIELDS.join(', ')}`;

/** Reads a CSV file (with a header line) or a JSON file (an array of objects), chosen by its name. */
export function readImportFile(fileName: string, text: string): ImportRow[] {
  if (/\.json$/i.test(fileName)) return readJson(text.replace(/^\uFEFF/, ''));
  if (/\.csv$/i.test(fileName)) return readCsv(text);
  throw new ImportFileError(`${fileName}: the file name must end in .csv or .json`);
}

function readCsv(text: string): ImportRow[] {
  let records: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    records = parseCsv(text, {
      bom: true,
      delimiter: delimiterOf(text),
      info: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as unknown as typeof records;
  } catch (error) {
    throw new ImportFileError(`the CSV cannot be read: ${(error as Error).message}`);
  }
  const [header, ...rows] = records;
  if (header === undefined) throw new ImportFileError('the file is empty: the first line names the columns');
  const columns = header.record;
  const unknown = columns.filter((name) => !isImportField(name));
  if (unknown.length > 0)
    throw new ImportFileError(
      `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; ${knownFields}`,
    );
  const repeated = columns.filter((name, index) => columns.indexOf(name) !== index);
  if (repeated.length > 0) throw new ImportFileError(`the column ${repeated[0]} is named twice`);
  if (!columns.includes('username')) throw new ImportFileError('the header has no username column');

  let lastLine = header.info.lines;
  let lastEmpty = header.info.empty_lines;
  return rows.map(({ record, info }) => {
    // csv-parse counts the line a record ends on; the row starts after the previous one and any blank lines.
    const line = lastLine + 1 + (info.empty_lines - lastEmpty);
    lastLine = info.lines;
    lastEmpty = info.empty_lines;
    const problems =
      record.length === columns.length
        ? []
        : [`has ${record.length} cells where the header names ${columns.length} columns`];
    const fields: ImportRow['fields'] = {};
    columns.forEach((name, index) => {
      const value = record[index] ?? '';
      fields[name as ImportField] = value === '' ? null : value;
    });
    return { line, fields, problems };
  });
}

/**
 * The delimiter the header line uses: a comma, or the semicolon or tab that spreadsheet programs
 * write in many languages (German Excel's "CSV" is semicolon-separated).
 */
function delimiterOf(text: string): string {
  const header = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  if (header.includes(',')) return ',';
  if (header.includes(';')) return ';';
  return header.includes('\t') ? '\t' : ',';
}

function readJson(text: string): ImportRow[] {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  const lineOf = lineIndex(text);
  const [first] = errors;
  if (first !== undefined)
    throw new ImportFileError(
      `the JSON cannot be read: ${printParseErrorCode(first.error)} on line ${lineOf(first.offset)}`,
    );
  if (tree?.type !== 'array')
    throw new ImportFileError('the JSON must be an array of users, [{ "username": ... }]');
  return (tree.children ?? []).map((element: Node) => {
    const line = lineOf(element.offset);
    if (element.type !== 'object') return { line, fields: {}, problems: ['is not an object'] };
    const problems: string[] = [];
    const fields: ImportRow['fields'] = {};
    for (const [name, value] of Object.entries(getNodeValue(element) as Record<string, unknown>)) {
      if (!isImportField(name)) {
        problems.push(`has the unknown field ${name}; ${knownFields}`);
      } else if (value === null || value === '') {
        fields[name] = null;
      } else if (typeof value === 'string') {
        fields[name] = value.trim();
      } else {
        problems.push(`${name} must be text or null`);
      }
    }
    return { line, fields, problems };
  });
}

/** The 1-based line of a character offset. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1))
    starts.push(index + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}
