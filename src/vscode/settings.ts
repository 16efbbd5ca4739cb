/**
 * The extension's settings, read through the shared contract (src/settings.ts): the language
 * server reads its section the same way, and every default comes from package.json.
 */
import * as vscode from 'vscode';
import { SETTINGS_SECTION, settingsFrom, type Settings } from '../settings';

export type { Settings };

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return settingsFrom((section) => c.get(section));
}
