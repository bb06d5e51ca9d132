import { normalisePhone } from '../../src/validation/phone';

describe('normalisePhone', () => {
  test.each([
    ['+55 11 98765-4321', '+5511987654321'],
    ['(11) 98765-4321', '+5511987654321'],
    ['11987654321', '+5511987654321'],
    ['+5511987654321', '+5511987654321'],
    ['5511987654321', '+5511987654321'],
    ['+55 (11) 9.8765.4321', '+5511987654321'],
    ['11 3456-7890', '+551134567890'],
    ['+55 21 2345 6789', '+552123456789'],
    ['552123456789', '+552123456789'],
    ['(99) 5555-0000', '+559955550000'],
    // DDD 55 exists, so 11 digits starting with 55 are a national number.
    ['55987654321', '+5555987654321'],
    ['+55 55 98765 4321', '+5555987654321'],
  ])('accepts %s', (input, expected) => {
    expect(normalisePhone(input)).toEqual({ ok: true, value: expected });
  });

  test.each([
    ['empty', ''],
    ['too short', '119876543'],
    ['mobile without leading 9', '11887654321'],
    ['landline starting with 1', '1114567890'],
    ['landline starting with 6', '1164567890'],
    ['old 8-digit mobile', '1198765432'],
    ['unassigned DDD 20', '20987654321'],
    ['unassigned DDD 23', '2323456789'],
    ['DDD with 0', '10987654321'],
    ['foreign country code', '+1 212 555 0100'],
    ['+ without country code', '+11987654321'],
    ['13 digits not starting with 55', '5411987654321'],
    ['14 digits', '55119876543210'],
    ['letters', '11 9876A-4321'],
    ['plus in the middle', '55+11987654321'],
    ['other symbols', '11/98765-4321'],
    ['trunk prefix 0', '011987654321'],
  ])('refuses %s', (_label, input) => {
    expect(normalisePhone(input)).toEqual({ ok: false, reason: 'must be a Brazilian phone number' });
  });
});
