package dev.deja.trace.internal;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FastDecompressor;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The binary layout of one log entry (format version {@value #FORMAT_VERSION}).
 *
 * <pre>
 * entry := crc32c:int32 flags:u8 [rawLength:stopbit if flags has LZ4] data
 * data  := body, LZ4-compressed when flags has LZ4
 * body  := type:u8 incarnation seq lamport atMillis (stop-bit encoded) fields-of-type
 * </pre>
 *
 * The CRC covers everything after itself, so a flipped bit anywhere in the stored entry is caught before
 * decompression. Bodies of at least {@value #COMPRESS_THRESHOLD} bytes are compressed when that saves space.
 * Not thread-safe: each writer thread uses its own instance.
 */
public final class EntryCodec {
    /** The trace format this build writes and reads. */
    public static final int FORMAT_VERSION = 1;

    static final int COMPRESS_THRESHOLD = 96;
    /** The CRC and the flags byte in front of every body. */
    public static final int HEADER_BYTES = 5;
    private static final byte FLAG_LZ4 = 1;

    private static final byte START = 1, RECEIVE = 2, SEND = 3, TIMER = 4, CLOCK = 5, RANDOM = 6,
            STORAGE_READ = 7, CRASH = 8;

    private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();
    private final LZ4Compressor compressor = LZ4.fastCompressor();
    private final LZ4FastDecompressor decompressor = LZ4.fastDecompressor();
    private final Bytes<byte[]> body = Bytes.allocateElasticOnHeap(256);
    private final Bytes<byte[]> out = Bytes.allocateElasticOnHeap(256);
    private final CRC32C crc = new CRC32C();
    private byte[] compressed = new byte[512];
    private int lastRawLength;

    /**
     * Encodes an event into a buffer owned by this codec, valid until the next call; the node id is implied
     * by the log the entry goes to.
     */
    public Bytes<byte[]> encode(TraceEvent entry) {
        body.clear();
        writeBody(entry, body);
        int rawLength = (int) body.readRemaining();
        lastRawLength = rawLength;
        byte[] raw = body.underlyingObject();
        out.clear();
        out.writeInt(0); // CRC placeholder, filled below
        boolean done = false;
        if (rawLength >= COMPRESS_THRESHOLD) {
            int max = compressor.maxCompressedLength(rawLength);
            if (compressed.length < max) {
                compressed = new byte[Math.max(max, compressed.length * 2)];
            }
            int length = compressor.compress(raw, 0, rawLength, compressed, 0, compressed.length);
            if (length + 3 < rawLength) {
                out.writeByte(FLAG_LZ4);
                out.writeStopBit(rawLength);
                out.write(compressed, 0, length);
                done = true;
            }
        }
        if (!done) {
            out.writeByte((byte) 0);
            out.write(raw, 0, rawLength);
        }
        crc.reset();
        crc.update(out.underlyingObject(), 4, (int) out.writePosition() - 4);
        out.writeInt(0, (int) crc.getValue());
        return out;
    }

    /**
     * The length of the body of the entry last encoded, before compression: what the entry would take without LZ4,
     * besides its {@value #HEADER_BYTES}-byte header (for measuring the format).
     */
    public int lastRawLength() {
        return lastRawLength;
    }

    private static void writeBody(TraceEvent entry, Bytes<?> b) {
        Event event = entry.event();
        b.writeByte(typeCode(event));
        b.writeStopBit(entry.incarnation());
        b.writeStopBit(entry.seq());
        b.writeStopBit(entry.lamport());
        b.writeStopBit(entry.atMillis());
        switch (event) {
            case Event.Start s -> {
                b.writeUtf8(s.nodeClass());
                b.writeStopBit(s.args().size());
                for (var e : new java.util.TreeMap<>(s.args()).entrySet()) {
                    b.writeUtf8(e.getKey());
                    b.writeUtf8(e.getValue());
                }
                b.writeStopBit(s.peers().size());
                for (NodeId peer : s.peers()) {
                    b.writeUtf8(peer.value());
                }
            }
            case Event.Receive r -> {
                b.writeUtf8(r.from().value());
                b.writeStopBit(r.fromLamport());
                b.writeStopBit(r.messageId());
                writePayload(b, r.message());
            }
            case Event.Send s -> {
                b.writeUtf8(s.to().value());
                b.writeStopBit(s.messageId());
                b.writeUtf8(s.messageType());
                b.writeLong(s.digest());
            }
            case Event.TimerFired t -> {
                b.writeStopBit(t.timerId());
                writePayload(b, t.tag());
            }
            case Event.ClockRead c -> b.writeStopBit(c.millis());
            case Event.RandomDraw r -> b.writeLong(r.value());
            case Event.StorageRead s -> {
                b.writeUtf8(s.key());
                if (s.value() == null) {
                    b.writeStopBit(0);
                } else {
                    b.writeStopBit(s.value().length + 1L);
                    b.write(s.value());
                }
            }
            case Event.Crash c -> b.writeStopBit(c.crashedIncarnation());
        }
    }

    private static byte typeCode(Event event) {
        return switch (event) {
            case Event.Start s -> START;
            case Event.Receive r -> RECEIVE;
            case Event.Send s -> SEND;
            case Event.TimerFired t -> TIMER;
            case Event.ClockRead c -> CLOCK;
            case Event.RandomDraw r -> RANDOM;
            case Event.StorageRead s -> STORAGE_READ;
            case Event.Crash c -> CRASH;
        };
    }

    private static void writePayload(Bytes<?> b, Payload payload) {
        b.writeUtf8(payload.type());
        b.writeStopBit(payload.bytes().length);
        b.write(payload.bytes());
    }

    /**
     * Decodes one stored entry.
     *
     * @throws CorruptEntryException if the checksum does not match or the entry cannot be parsed
     */
    public TraceEvent decode(NodeId node, byte[] stored) {
        if (stored.length < 5) {
            throw new CorruptEntryException("entry is " + stored.length + " bytes long, shorter than its header");
        }
        crc.reset();
        crc.update(stored, 4, stored.length - 4);
        Bytes<byte[]> in = Bytes.wrapForRead(stored);
        int expected = in.readInt(0);
        if ((int) crc.getValue() != expected) {
            throw new CorruptEntryException(String.format(
                    "checksum mismatch (stored CRC32C %08x, computed %08x)", expected, (int) crc.getValue()));
        }
        try {
            in.readSkip(4);
            byte flags = in.readByte();
            if ((flags & ~FLAG_LZ4) != 0) {
                throw new CorruptEntryException("unknown entry flags " + flags);
            }
            if ((flags & FLAG_LZ4) != 0) {
                int rawLength = Math.toIntExact(in.readStopBit());
                byte[] raw = new byte[rawLength];
                decompressor.decompress(stored, (int) in.readPosition(), raw, 0, rawLength);
                in = Bytes.wrapForRead(raw);
            }
            return readBody(node, in);
        } catch (CorruptEntryException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CorruptEntryException("unreadable entry: " + e, e);
        }
    }

    private static TraceEvent readBody(NodeId node, Bytes<?> in) {
        byte type = in.readByte();
        int incarnation = Math.toIntExact(in.readStopBit());
        long seq = in.readStopBit();
        long lamport = in.readStopBit();
        long atMillis = in.readStopBit();
        Event event = switch (type) {
            case START -> {
                String nodeClass = in.readUtf8();
                int argCount = Math.toIntExact(in.readStopBit());
                Map<String, String> args = new LinkedHashMap<>();
                for (int i = 0; i < argCount; i++) {
                    args.put(in.readUtf8(), in.readUtf8());
                }
                int peerCount = Math.toIntExact(in.readStopBit());
                List<NodeId> peers = new ArrayList<>(peerCount);
                for (int i = 0; i < peerCount; i++) {
                    peers.add(new NodeId(in.readUtf8()));
                }
                yield new Event.Start(nodeClass, args, peers);
            }
            case RECEIVE -> new Event.Receive(new NodeId(in.readUtf8()), in.readStopBit(), in.readStopBit(),
                    readPayload(in));
            case SEND -> new Event.Send(new NodeId(in.readUtf8()), in.readStopBit(), in.readUtf8(), in.readLong());
            case TIMER -> new Event.TimerFired(in.readStopBit(), readPayload(in));
            case CLOCK -> new Event.ClockRead(in.readStopBit());
            case RANDOM -> new Event.RandomDraw(in.readLong());
            case STORAGE_READ -> {
                String key = in.readUtf8();
                long length = in.readStopBit();
                byte[] value = null;
                if (length > 0) {
                    value = new byte[Math.toIntExact(length - 1)];
                    in.read(value);
                }
                yield new Event.StorageRead(key, value);
            }
            case CRASH -> new Event.Crash(Math.toIntExact(in.readStopBit()));
            default -> throw new CorruptEntryException("unknown event type code " + type);
        };
        if (in.readRemaining() != 0) {
            throw new CorruptEntryException(in.readRemaining() + " unexpected bytes after a " + event.typeName()
                    + " event");
        }
        return new TraceEvent(node, incarnation, seq, lamport, atMillis, event);
    }

    private static Payload readPayload(Bytes<?> in) {
        String type = in.readUtf8();
        int length = Math.toIntExact(in.readStopBit());
        if (length > in.readRemaining()) {
            throw new CorruptEntryException("payload length " + length + " exceeds the entry");
        }
        byte[] bytes = new byte[length];
        in.read(bytes);
        return new Payload(type, bytes);
    }

    /** Thrown when a stored entry fails its checksum or cannot be parsed. */
    public static final class CorruptEntryException extends RuntimeException {
        public CorruptEntryException(String message) {
            super(message);
        }

        public CorruptEntryException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
