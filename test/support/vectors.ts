// Public vectors from formats.md, shared by the validation and spot-check tests.
export const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'; // password U*U
export const BCRYPT_PASSWORD = 'U*U';
export const ARGON2 = '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc'; // password
export const ARGON2_PASSWORD = 'password';
export const SIGNER_KEY = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
export const SCRYPT_SALT = '42xEC+ixf3L2lw==';
export const SCRYPT_USER1_HASH = 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';
export const SCRYPT_HUNTER2_HASH = '70k8Vg5B3/OrvJOiqusnasv0dLcBHoDAqJrJr7TRLBfMw4MitWx51YXJYFdGiyMbMeKtWtLf5HiBDcN0SUOm4A==';
export const scryptString = (hash: string, salt = SCRYPT_SALT): string => `$f_scrypt$${hash}$${salt}$m=14$r=8$s=Bw==`;
export const SCRYPT = scryptString(SCRYPT_USER1_HASH); // password user1password
/** RFC 6238 seed, 20 bytes. */
export const TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
export const base32Of = (bytes: number): string => {
  // Base32 of `bytes` bytes of 0x55 (no padding), made without the code under test.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (let i = 0; i < bytes; i++) bits += (0x55).toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
};
