import { extname } from 'node:path';
import {
  BRANDING_NAMES,
  BRANDING_TYPE_OF,
  BRANDING_TYPES,
  type BrandingName,
  type BrandingType,
  isBrandingName,
} from '@dea/contract';
import {
  brandingEntries,
  brandingValueProblem,
  MAX_BRANDING_VALUE_BYTES,
  resetBranding,
  setBranding,
} from '../domain/settings/branding-rules.js';
import {
  argument,
  asCliFailure,
  CliFailure,
  type CommandGroup,
  noMoreArguments,
  optionText,
  UsageError,
  readOperatorFile,
} from './command.js';

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.svg': 'image/svg+xml',
};

function brandingName(value: string): BrandingName {
  if (!isBrandingName(value))
    throw new UsageError(`unknown branding entry "${value}" (one of ${BRANDING_NAMES.join(', ')})`);
  return value;
}

function brandingType(value: string | undefined, name: BrandingName): BrandingType {
  if (value === undefined) return BRANDING_TYPE_OF[name];
  if (!(BRANDING_TYPES as readonly string[]).includes(value))
    throw new UsageError(`--type must be one of ${BRANDING_TYPES.join(', ')}`);
  return value as BrandingType;
}

/** A file's content as the entry's value: images become data URLs, the rest is read as UTF-8 text. */
async function valueOfFile(path: string, type: BrandingType): Promise<string> {
  const mediaType = IMAGE_TYPES[extname(path).toLowerCase()];
  if (type === 'image' && mediaType === undefined)
    throw new UsageError(`an image file must end in ${Object.keys(IMAGE_TYPES).join(', ')}`);
  const content = await readOperatorFile(path);
  if (content.length > MAX_BRANDING_VALUE_BYTES) throw new CliFailure(`${path} is larger than 512 KiB`);
  return type === 'image'
    ? `data:${mediaType};base64,${content.toString('base64')}`
    : content.toString('utf8');
}

export const brandingCommands: CommandGroup = {
  name: 'branding',
  summary: `the look of the page (entries: ${BRANDING_NAMES.join(', ')})`,
  commands: {
    set: {
      summary: 'set an entry from a value or a file (an image file becomes a data URL)',
      usage: '<name> (--value VALUE | --file PATH) [--type text|html|css|image]',
      options: { value: { type: 'string' }, file: { type: 'string' }, type: { type: 'string' } },
      async run(values, positionals, context) {
        const name = brandingName(argument(positionals, 0, 'name'));
        noMoreArguments(positionals, 1);
        const type = brandingType(optionText(values, 'type'), name);
        const given = optionText(values, 'value');
        const file = optionText(values, 'file');
        if ((given === undefined) === (file === undefined))
          throw new UsageError('give the value with either --value or --file');
        if (given !== undefined && Buffer.byteLength(given) > MAX_BRANDING_VALUE_BYTES)
          throw new UsageError('--value is larger than 512 KiB');
        if (type === 'image' && given !== undefined && brandingValueProblem(type, given) !== undefined)
          throw new UsageError('an image value must be an http(s) URL or a data:image URL (or use --file)');
        const value = given ?? (await valueOfFile(file ?? '', type));
        const { store } = await context.open();
        await setBranding(store, { name, type, value }, 'cli', context.now()).catch((error: unknown) =>
          asCliFailure(error, false),
        );
        context.out(`Set branding ${name} (${type}, ${Buffer.byteLength(value)} bytes).`);
        return 0;
      },
    },
    reset: {
      summary: "reset an entry to the product's default",
      usage: '<name>',
      options: {},
      async run(_values, positionals, context) {
        const name = brandingName(argument(positionals, 0, 'name'));
        noMoreArguments(positionals, 1);
        const { store } = await context.open();
        await resetBranding(store, name, 'cli', context.now());
        context.out(`Reset branding ${name} to the default.`);
        return 0;
      },
    },
    list: {
      summary: 'list the entries (long values shortened; --json shows them whole)',
      usage: '[--json]',
      options: { json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const entries = await brandingEntries(store);
        if (values.json === true) {
          context.out(JSON.stringify(entries, null, 2));
          return 0;
        }
        for (const entry of entries) {
          const shown = entry.value.length > 60 ? `${entry.value.slice(0, 57)}...` : entry.value;
          const value = entry.isDefault ? '(default)' : JSON.stringify(shown);
          context.out(`${entry.name.padEnd(16)} ${entry.type.padEnd(5)} ${value}`);
        }
        return 0;
      },
    },
  },
};
