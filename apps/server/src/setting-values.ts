import type Type from 'typebox';

/** The typed values of a table of settings ({ NAME: { schema, doc } }), as the loader converts them. */
export type SettingValues<Table extends Record<string, { schema: Type.TSchema }>> = {
  [Name in keyof Table]: Type.Static<Table[Name]['schema']>;
};
