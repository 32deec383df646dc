// `bookdist help <command...>`: the help of any command, at any depth. commander's built-in help
// command only looks at its first word (`help book get` would show the help of `book`), so the
// root gets a real `help` command; groups keep commander's (`bookdist book help get`).
import { handles } from '../define.js';
import { help } from './help.cmd.js';
import { showHelp } from './help.js';

export const commands = [handles(help, showHelp)];
