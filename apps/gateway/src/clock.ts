// The kit's one time source; tests pass a clock they can move across windows and lifetimes.
export { type Clock, systemClock } from "@arena/service-kit";
