// Preload for crash tests (`node --import <this> …`): a TCP connection to port 9 (discard) never connects,
// and 50 ms later an error is thrown from a timer, as a probe whose socket code threw asynchronously once
// did. Nothing catches it: it reaches the process's `uncaughtException`, as a real one would.
import { Socket } from "node:net";

const connect = Socket.prototype.connect;
Socket.prototype.connect = function (...args) {
  // net.connect passes its normalised arguments as one array: [options, callback].
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  const port = typeof options === "object" && options !== null ? Number(options.port) : Number(options);
  if (port === 9) {
    setTimeout(() => {
      throw new Error("socket code threw from a timer (crash test, port 9)");
    }, 50);
    return this;
  }
  return connect.apply(this, args);
};
