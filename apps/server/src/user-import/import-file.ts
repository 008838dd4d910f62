import { Readable } from 'node:stream';
import { CHANNEL_KEYS } from '@dea/contract';
import { type Options as CsvOptions, parse as parseCsvStream } from 'csv-parse';
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

/**
 * The rows of a file, read again at each call in batches of `size` (an import checks every row
 * before it writes any, then writes batch by batch): a CSV file is parsed as it is read, so only
 * one batch of rows is held at a time; a JSON file is parsed whole. A file that cannot be read
 * throws ImportFileError while its batches are read.
 */
export type ImportBatches = (size: number) => AsyncIterable<ImportRow[]>;

/** As readImportFile, in batches (ImportBatches). */
export function importBatches(fileName: string, text: string): ImportBatches {
  if (/\.json$/i.test(fileName)) {
    const rows = readJson(text.replace(/^\uFEFF/, ''));
    return async function* (size) {
      for (let at = 0; at < rows.length; at += size) yield rows.slice(at, at + size);
    };
  }
  if (/\.csv$/i.test(fileName)) return (size) => csvBatches(text, size);
  throw new ImportFileError(`${fileName}: the file name must end in .csv or .json`);
}

interface CsvRecord {
  record: string[];
  info: { lines: number; empty_lines: number };
}

const csvOptions = (text: string): CsvOptions => ({
  bom: true,
  delimiter: delimiterOf(text),
  info: true,
  trim: true,
  skip_empty_lines: true,
  relax_column_count: true,
});

const csvUnreadable = (error: unknown) =>
  new ImportFileError(`the CSV cannot be read: ${(error as Error).message}`);

function readCsv(text: string): ImportRow[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(text, csvOptions(text)) as unknown as CsvRecord[];
  } catch (error) {
    throw csvUnreadable(error);
  }
  const [header, ...rows] = records;
  const toRow = csvRows(header);
  return rows.map(toRow);
}

/** Pieces of the text the parser is given at a time, so that it holds only what is read. */
const CSV_PIECE = 64 * 1024;

async function* csvBatches(text: string, size: number): AsyncGenerator<ImportRow[]> {
  const pieces = function* () {
    for (let at = 0; at < text.length; at += CSV_PIECE) yield text.slice(at, at + CSV_PIECE);
  };
  const parser = Readable.from(pieces()).pipe(parseCsvStream(csvOptions(text)));
  let toRow: ((record: CsvRecord) => ImportRow) | undefined;
  let batch: ImportRow[] = [];
  try {
    for await (const record of parser as AsyncIterable<CsvRecord>) {
      if (toRow === undefined) {
        toRow = csvRows(record);
        continue;
      }
      batch.push(toRow(record));
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    throw error instanceof ImportFileError ? error : csvUnreadable(error);
  } finally {
    parser.destroy();
  }
  if (toRow === undefined) csvRows(undefined);
  if (batch.length > 0) yield batch;
}

/** Checks the header; answers how each record after it becomes a row, in the file's order. */
function csvRows(header: CsvRecord | undefined): (record: CsvRecord) => ImportRow {
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
  return ({ record, info }) => {
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
  };
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
