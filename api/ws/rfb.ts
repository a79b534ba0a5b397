// The two halves of the RFB (VNC) handshake the proxy performs, so that a viewer holding only the
// link gets in: toward the VM it is the client and answers the VM's VNC authentication with the
// VM's password; toward the viewer it is the server and offers security type None. After both,
// the rest of the session (ClientInit, ServerInit, messages) is the same in RFB 3.3, 3.7 and 3.8,
// so the proxy relays it untouched.
import type { ByteReader } from './byte-reader.ts';
import { vncAuthResponse } from './vnc-des.ts';

const SECURITY_NONE = 1;
const SECURITY_VNC_AUTH = 2;

export class RfbError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RfbError';
  }
}

/** "RFB 003.008\n" → 8 (the minor version), or throws for anything that is not a version line. */
function minorVersion(line: Buffer): { major: number; minor: number } {
  const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(line.toString('latin1'));
  if (!match) throw new RfbError('not an RFB version line');
  return { major: Number(match[1]), minor: Number(match[2]) };
}

async function readReason(reader: ByteReader): Promise<string> {
  const length = await reader.readU32();
  if (length > 4096) return 'refused';
  return (await reader.read(length)).toString('utf8');
}

/**
 * Client side, toward the VM's VNC server: version, security (None, or VNC authentication with the
 * password), security result. Resolves when the server waits for ClientInit.
 */
export async function authenticateToServer(
  reader: ByteReader,
  write: (b: Buffer) => void,
  password: string,
): Promise<void> {
  const { major, minor } = minorVersion(await reader.read(12));
  if (major !== 3) throw new RfbError(`unsupported RFB version ${major}.${minor}`);
  const version = minor >= 8 ? 8 : minor >= 7 ? 7 : 3;
  write(Buffer.from(`RFB 003.00${version}\n`, 'latin1'));

  let type: number;
  if (version === 3) {
    type = await reader.readU32();
    if (type === 0) throw new RfbError(`VNC server refused: ${await readReason(reader)}`);
  } else {
    const count = await reader.readU8();
    if (count === 0) throw new RfbError(`VNC server refused: ${await readReason(reader)}`);
    const offered = [...(await reader.read(count))];
    type = offered.includes(SECURITY_NONE) ? SECURITY_NONE : SECURITY_VNC_AUTH;
    if (!offered.includes(type))
      throw new RfbError(`VNC server offers no usable security type (${offered.join(',')})`);
    write(Buffer.from([type]));
  }
  if (type === SECURITY_VNC_AUTH) {
    const challenge = await reader.read(16);
    write(vncAuthResponse(password, challenge));
  } else if (type !== SECURITY_NONE) {
    throw new RfbError(`VNC server wants security type ${type}`);
  }
  // 3.8 always sends a result; 3.3 and 3.7 only after VNC authentication.
  if (version === 8 || type === SECURITY_VNC_AUTH) {
    const result = await reader.readU32();
    if (result !== 0) {
      const reason = version === 8 ? await readReason(reader) : 'authentication failed';
      throw new RfbError(`VNC authentication failed: ${reason}`);
    }
  }
}

/**
 * Server side, toward the viewer: offers RFB 3.8 and security type None (the link already proved
 * who the viewer is). Resolves when the viewer is about to send ClientInit.
 */
export async function acceptViewer(reader: ByteReader, write: (b: Buffer) => void): Promise<void> {
  write(Buffer.from('RFB 003.008\n', 'latin1'));
  const { major, minor } = minorVersion(await reader.read(12));
  if (major !== 3) throw new RfbError(`unsupported RFB version ${major}.${minor}`);
  if (minor < 7) {
    // RFB 3.3: the server decides the security type; None has no result message.
    const type = Buffer.alloc(4);
    type.writeUInt32BE(SECURITY_NONE);
    write(type);
    return;
  }
  write(Buffer.from([1, SECURITY_NONE]));
  const chosen = await reader.readU8();
  if (chosen !== SECURITY_NONE) throw new RfbError(`viewer chose security type ${chosen}`);
  if (minor >= 8) write(Buffer.alloc(4)); // SecurityResult OK
}
