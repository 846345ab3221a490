// Minimal typings for raw-socket 1.8.1 (the package ships none): only what the ICMP sockets here use.
declare module "raw-socket" {
  import type { EventEmitter } from "node:events";

  export interface CreateSocketOptions {
    addressFamily?: number;
    protocol?: number;
    bufferSize?: number;
    generateChecksums?: boolean;
    checksumOffset?: number;
  }

  export interface Socket extends EventEmitter {
    recvPaused: boolean;
    sendPaused: boolean;
    close(): this;
    pauseRecv(): this;
    pauseSend(): this;
    resumeRecv(): this;
    resumeSend(): this;
    send(
      buffer: Buffer,
      offset: number,
      length: number,
      address: string,
      beforeCallback: (() => void) | null,
      afterCallback: (error: Error | null, bytes: number) => void,
    ): this;
    setOption(level: number, option: number, value: number): void;
    setOption(level: number, option: number, value: Buffer, length: number): void;
    getOption(level: number, option: number, value: Buffer, length: number): number;
    on(event: "message", listener: (buffer: Buffer, source: string) => void): this;
    on(event: "error", listener: (error: Error) => void): this;
    on(event: "close", listener: () => void): this;
  }

  export function createSocket(options?: CreateSocketOptions): Socket;
  export function createChecksum(
    ...data: Array<Buffer | { buffer: Buffer; offset: number; length: number }>
  ): number;
  export function writeChecksum(buffer: Buffer, offset: number, checksum: number): Buffer;

  export const AddressFamily: { IPv4: number; IPv6: number };
  export const Protocol: { None: number; ICMP: number; TCP: number; UDP: number; ICMPv6: number };
  export const SocketLevel: { SOL_SOCKET: number; IPPROTO_IP: number; IPPROTO_IPV6: number };
  export const SocketOption: {
    SO_RCVBUF: number;
    SO_RCVTIMEO: number;
    SO_SNDBUF: number;
    SO_SNDTIMEO: number;
    IP_HDRINCL: number;
    IP_OPTIONS: number;
    IP_TOS: number;
    IP_TTL: number;
    IPV6_TTL: number;
    IPV6_UNICAST_HOPS: number;
    IPV6_V6ONLY: number;
  };

  const raw: {
    createSocket: typeof createSocket;
    createChecksum: typeof createChecksum;
    writeChecksum: typeof writeChecksum;
    AddressFamily: typeof AddressFamily;
    Protocol: typeof Protocol;
    SocketLevel: typeof SocketLevel;
    SocketOption: typeof SocketOption;
  };
  export default raw;
}
