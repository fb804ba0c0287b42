// Loaded with `node --require` by scripts/make-session --clock (dev tooling): the process's
// clock starts at TRACELINT_CLOCK (an ISO time) and then runs at the real pace, so a CLI run
// today writes a session dated like one a user ran that day.
const start = process.env.TRACELINT_CLOCK;
if (start) {
  const RealDate = Date;
  const offset = RealDate.parse(start) - RealDate.now();
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() { return RealDate.now() + offset; }
  }
  globalThis.Date = ShiftedDate;
}
