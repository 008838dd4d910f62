import { writeFile } from 'node:fs/promises';
import { DEFAULT_LANGUAGE, TEXT_KEYS } from '@dea/contract';
import { addLanguage, checkTexts, importTexts, languageCodeProblem } from '../domain/texts/message-texts.js';
import type { Store } from '../store/store.js';
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

function languageCode(value: string): string {
  const problem = languageCodeProblem(value);
  if (problem !== undefined) throw new UsageError(problem);
  return value;
}

async function requireLanguage(store: Store, code: string): Promise<{ code: string; name: string }> {
  const language = (await store.catalogs.listLanguages()).find((row) => row.code === code);
  if (language === undefined)
    throw new CliFailure(`unknown language ${code} (dea messages add-language ${code} <name> adds it)`);
  return language;
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The texts of an import file, checked by the rule the console uses too. */
export function checkCatalog(content: unknown): Record<string, string> {
  try {
    return checkTexts(content);
  } catch (error) {
    return asCliFailure(error);
  }
}

/** The texts in the order of the contract's key list, so exports diff well. */
function ordered(texts: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    TEXT_KEYS.filter((key) => Object.hasOwn(texts, key)).map((key) => [key, texts[key] ?? '']),
  );
}

export const messageCommands: CommandGroup = {
  name: 'messages',
  summary: 'message catalogs: the texts of the page, the login application and delivered messages',
  commands: {
    languages: {
      summary: 'list the languages and how many texts each has',
      usage: '[--json]',
      options: { json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const languages = [];
        for (const { code, name } of await store.catalogs.listLanguages()) {
          languages.push({ code, name, texts: Object.keys(await store.catalogs.messages(code)).length });
        }
        if (values.json === true) {
          context.out(JSON.stringify(languages, null, 2));
          return 0;
        }
        for (const language of languages) {
          context.out(
            `${language.code.padEnd(8)} ${language.name}  (${language.texts} of ${TEXT_KEYS.length} texts)`,
          );
        }
        return 0;
      },
    },
    export: {
      summary: "write a language's texts as JSON (text key -> text) to standard output or a file",
      usage: '<lang> [--out FILE]',
      options: { out: { type: 'string' } },
      async run(values, positionals, context) {
        const code = languageCode(argument(positionals, 0, 'lang'));
        noMoreArguments(positionals, 1);
        const out = optionText(values, 'out');
        const { store } = await context.open();
        await requireLanguage(store, code);
        const texts = ordered(await store.catalogs.messages(code));
        const json = JSON.stringify(texts, null, 2);
        if (out === undefined) {
          context.out(json);
          return 0;
        }
        try {
          await writeFile(out, `${json}\n`);
        } catch (error) {
          throw new CliFailure(`cannot write ${out} (${(error as NodeJS.ErrnoException).code})`);
        }
        context.out(`Wrote ${plural(Object.keys(texts).length, 'text')} of ${code} to ${out}.`);
        return 0;
      },
    },
    import: {
      summary: 'read texts (JSON, text key -> text) into a language; --overwrite replaces texts it has',
      usage: '<lang> <file> [--overwrite]',
      options: { overwrite: { type: 'boolean' } },
      async run(values, positionals, context) {
        const code = languageCode(argument(positionals, 0, 'lang'));
        const file = argument(positionals, 1, 'file');
        noMoreArguments(positionals, 2);
        const text = (await readOperatorFile(file)).toString('utf8');
        let content: unknown;
        try {
          content = JSON.parse(text);
        } catch (error) {
          throw new UsageError(`${file} is not valid JSON (${(error as Error).message})`);
        }
        const texts = checkCatalog(content);
        const overwrite = values.overwrite === true;
        const { store } = await context.open();
        await requireLanguage(store, code);
        const { added, differing } = await importTexts(store, code, texts, {
          overwrite,
          actor: 'cli',
          now: context.now(),
        });
        const rest = overwrite
          ? `${plural(differing, 'text')} replaced`
          : `${plural(differing, 'different text')} kept (--overwrite replaces them)`;
        context.out(`Imported into ${code}: ${plural(added, 'text')} added, ${rest}.`);
        return 0;
      },
    },
    'add-language': {
      summary: 'add a language, starting from the texts of another (English by default)',
      usage: '<code> <name> [--from en]',
      options: { from: { type: 'string' } },
      async run(values, positionals, context) {
        const code = argument(positionals, 0, 'code');
        const name = argument(positionals, 1, 'name').trim();
        noMoreArguments(positionals, 2);
        const from = optionText(values, 'from') ?? DEFAULT_LANGUAGE;
        const { store } = await context.open();
        const count = await addLanguage(store, { code, name, from }, 'cli', context.now()).catch(
          (error: unknown) => asCliFailure(error),
        );
        context.out(`Added language ${code} (${name}) with ${plural(count, 'text')} of ${from}.`);
        return 0;
      },
    },
  },
};
