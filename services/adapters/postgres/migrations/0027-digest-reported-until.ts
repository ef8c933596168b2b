// Schema version 28: where a channel's last digest ended. The next digest starts there, so a
// schedule changed after a digest neither reports hours twice (09:00 sent, then moved to 10:00:
// the 10:00 digest covered the 23 hours before 09:00 again) nor skips them (moved from 09:00 to
// 08:00 before the 09:00 digest: the hours since yesterday's were never reported), and a
// dispatcher down across due times reports the days it missed (a week at most). NULL until a
// digest is claimed, and again once the digest is turned off: a first one covers the day before
// its due time.
export default /* sql */ `
ALTER TABLE alert_channels ADD COLUMN digest_reported_until timestamptz;
`;
