import { describe, expect, it } from 'vitest';
import { desEncryptBlock, vncAuthResponse } from './vnc-des.ts';

describe('DES for VNC authentication', () => {
  it('encrypts the classic DES test vector', () => {
    const out = desEncryptBlock(
      Buffer.from('133457799BBCDFF1', 'hex'),
      Buffer.from('0123456789ABCDEF', 'hex'),
    );
    expect(out.toString('hex')).toBe('85e813540f0ab405');
  });

  it('encrypts a challenge block by block with the bit-reversed, zero-padded password', () => {
    const challenge = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const response = vncAuthResponse('pw', challenge);
    // 'p' = 0x70 → 0x0e, 'w' = 0x77 → 0xee when bit-reversed; the rest of the key is zero.
    const key = Buffer.from([0x0e, 0xee, 0, 0, 0, 0, 0, 0]);
    expect(response.subarray(0, 8)).toEqual(desEncryptBlock(key, challenge.subarray(0, 8)));
    expect(response.subarray(8)).toEqual(desEncryptBlock(key, challenge.subarray(8)));
    expect(vncAuthResponse('longerthan8', challenge)).toEqual(vncAuthResponse('longerth', challenge));
  });
});
