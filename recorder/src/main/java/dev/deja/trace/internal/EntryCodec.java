package dev.deja.trace.internal;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.EventKind;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FastDecompressor;

/**
 * The binary layout of log entries and of the queue documents holding them (format version {@value #FORMAT_VERSION}).
 *
 * <pre>
 * document := count:stopbit (length:stopbit entry){count}   format 2: the entries of one handler call
 *           | entry                                        format 1: one entry a document
 * entry    := crc32c:int32 flags:u8 [rawLength:stopbit if flags has LZ4] data
 * data     := body, LZ4-compressed when flags has LZ4
 * body     := type:u8 incarnation seq lamport atMillis (stop-bit encoded) fields-of-type
 * class    := id:stopbit                  format 2, id &gt; 0: the id-th class name defined in this log
 *           | 0:stopbit name:string       format 2: defines the next id (1, 2, ...)
 *           | name:string                 format 1
 * </pre>
 *
 * The CRC covers everything after itself, so a flipped bit anywhere in the stored entry is caught before
 * decompression. Bodies of at least {@value #COMPRESS_THRESHOLD} bytes are compressed when that saves space.
 * Numbers are little-endian; stop-bit numbers and strings are Chronicle Bytes' encodings (7 bits a byte, low
 * first; a string is its UTF-8 length then each char as 1-3 bytes), which format 1 was first written with.
 * The class of a message or timer tag ({@code class} above) is 40 to 50 of the 90 or so bytes of a send or receive
 * entry when spelled out, so format 2 spells each out once per log (one incarnation's queue) and numbers it: a
 * format 2 log must be decoded in order, from its first entry, by one codec. Documents are built by
 * {@link DocumentBuilder} and split by {@link DocumentReader}.
 *
 * <p>Encoding and decoding work on plain byte arrays owned by the codec, reused from entry to entry: this runs
 * on a node's handler thread for every recorded event, and on the replay thread for every entry read. Strings and
 * node ids that repeat (node ids, message classes) are encoded once and decoded to the same instances. Not
 * thread-safe: each thread uses its own instance.
 */
public final class EntryCodec {
    /** The trace format this build writes. */
    public static final int FORMAT_VERSION = 2;
    /** The oldest trace format this build reads. */
    public static final int OLDEST_READABLE_VERSION = 1;

    /**
     * Smaller bodies are stored raw: on single entries of a few hundred bytes LZ4 rarely saves anything (measured
     * on the key-value and Paxos traces: never below 96 bytes, under 5% from 96 to 255) and each attempt costs
     * more than the rest of the encoding.
     */
    static final int COMPRESS_THRESHOLD = 256;
    /** The CRC and the flags byte in front of every body. */
    public static final int HEADER_BYTES = 5;
    private static final byte FLAG_LZ4 = 1;
    private static final int CACHED_STRINGS = 512;

    private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();
    private final LZ4Compressor compressor = LZ4.fastCompressor();
    private final LZ4FastDecompressor decompressor = LZ4.fastDecompressor();
    private final CRC32C crc = new CRC32C();
    private final Writer body = new Writer(256);
    private final Writer out = new Writer(256);
    private final int formatVersion;
    private final Map<String, byte[]> encodedStrings = new HashMap<>();
    private final StringCache decodedStrings = new StringCache();
    private final Map<String, Integer> classIds = new HashMap<>();
    private final List<String> classNames = new ArrayList<>();
    private byte[] raw = new byte[256];
    private int lastRawLength;

    /** A codec for one log of the current format. */
    public EntryCodec() {
        this(FORMAT_VERSION);
    }

    /** A codec for one log of {@code formatVersion}, which {@link #canRead} must accept. */
    public EntryCodec(int formatVersion) {
        if (!canRead(formatVersion)) {
            throw new IllegalArgumentException("unknown trace format " + formatVersion);
        }
        this.formatVersion = formatVersion;
    }

    /** Forgets the class names of the log coded so far, to code the next log (the next incarnation's queue). */
    public void startLog() {
        classIds.clear();
        classNames.clear();
    }

    /**
     * Encodes an event into {@link #encoded()}, valid until the next call, and returns its length; the node id is
     * implied by the log the entry goes to.
     */
    public int encode(TraceEvent entry) {
        body.clear();
        writeBody(entry, body);
        int rawLength = body.length;
        lastRawLength = rawLength;
        out.clear();
        out.ensure(HEADER_BYTES + 5 + compressor.maxCompressedLength(rawLength));
        out.length = 4; // CRC, filled below
        boolean done = false;
        if (rawLength >= COMPRESS_THRESHOLD) {
            Writer compressed = out;
            int flagsAt = compressed.length;
            compressed.writeByte(FLAG_LZ4);
            compressed.writeStopBit(rawLength);
            int dataAt = compressed.length;
            int length = compressor.compress(body.bytes, 0, rawLength, compressed.bytes, dataAt,
                    compressed.bytes.length - dataAt);
            if (length + 3 < rawLength) {
                compressed.length = dataAt + length;
                done = true;
            } else {
                compressed.length = flagsAt;
            }
        }
        if (!done) {
            out.writeByte((byte) 0);
            out.write(body.bytes, 0, rawLength);
        }
        crc.reset();
        crc.update(out.bytes, 4, out.length - 4);
        int value = (int) crc.getValue();
        out.bytes[0] = (byte) value;
        out.bytes[1] = (byte) (value >>> 8);
        out.bytes[2] = (byte) (value >>> 16);
        out.bytes[3] = (byte) (value >>> 24);
        return out.length;
    }

    /** The entry last encoded: the first {@link #encode} result bytes of this array (which later calls reuse). */
    public byte[] encoded() {
        return out.bytes;
    }

    /** Encodes an event into a new array of exactly its length. */
    public byte[] encodeToArray(TraceEvent entry) {
        int length = encode(entry); // before reading the buffer, which encoding may replace
        return Arrays.copyOf(out.bytes, length);
    }

    /**
     * The length of the body of the entry last encoded, before compression: what the entry would take without LZ4,
     * besides its {@value #HEADER_BYTES}-byte header (for measuring the format).
     */
    public int lastRawLength() {
        return lastRawLength;
    }

    private void writeBody(TraceEvent entry, Writer b) {
        Event event = entry.event();
        b.writeByte(event.kind().code());
        b.writeStopBit(entry.incarnation());
        b.writeStopBit(entry.seq());
        b.writeStopBit(entry.lamport());
        b.writeStopBit(entry.atMillis());
        switch (event) {
            case Event.Start s -> {
                writeUtf8(b, s.nodeClass());
                b.writeStopBit(s.args().size());
                for (var e : new TreeMap<>(s.args()).entrySet()) {
                    writeUtf8(b, e.getKey());
                    writeUtf8(b, e.getValue());
                }
                b.writeStopBit(s.peers().size());
                for (NodeId peer : s.peers()) {
                    writeUtf8(b, peer.value());
                }
            }
            case Event.Receive r -> {
                writeUtf8(b, r.from().value());
                b.writeStopBit(r.fromLamport());
                b.writeStopBit(r.messageId());
                writePayload(b, r.message());
            }
            case Event.Send s -> {
                writeUtf8(b, s.to().value());
                b.writeStopBit(s.messageId());
                writeClass(b, s.messageType());
                b.writeLong(s.digest());
            }
            case Event.TimerFired t -> {
                b.writeStopBit(t.timerId());
                writePayload(b, t.tag());
            }
            case Event.ClockRead c -> b.writeStopBit(c.millis());
            case Event.RandomDraw r -> b.writeLong(r.value());
            case Event.StorageRead s -> {
                writeUtf8(b, s.key());
                if (s.value() == null) {
                    b.writeStopBit(0);
                } else {
                    b.writeStopBit(s.value().length + 1L);
                    b.write(s.value(), 0, s.value().length);
                }
            }
            case Event.Crash c -> b.writeStopBit(c.crashedIncarnation());
        }
    }

    private void writePayload(Writer b, Payload payload) {
        writeClass(b, payload.type());
        b.writeStopBit(payload.bytes().length);
        b.write(payload.bytes(), 0, payload.bytes().length);
    }

    private void writeClass(Writer b, String name) {
        if (formatVersion == 1) {
            writeUtf8(b, name);
            return;
        }
        Integer id = classIds.get(name);
        if (id != null) {
            b.writeStopBit(id);
            return;
        }
        b.writeStopBit(0);
        b.writeUtf8(name);
        classIds.put(name, classIds.size() + 1);
    }

    /** Writes a string as its length and chars; the encodings of short strings are kept, since they repeat. */
    private void writeUtf8(Writer b, String text) {
        if (text.length() > 64) {
            b.writeUtf8(text);
            return;
        }
        byte[] encoded = encodedStrings.get(text);
        if (encoded == null) {
            Writer once = new Writer(text.length() * 3 + 10);
            once.writeUtf8(text);
            encoded = Arrays.copyOf(once.bytes, once.length);
            if (encodedStrings.size() >= CACHED_STRINGS) {
                encodedStrings.clear(); // a node with many distinct keys: start over rather than grow
            }
            encodedStrings.put(text, encoded);
        }
        b.write(encoded, 0, encoded.length);
    }

    /** Whether this build reads traces of format {@code version}. */
    public static boolean canRead(int version) {
        return version >= OLDEST_READABLE_VERSION && version <= FORMAT_VERSION;
    }

    /**
     * Decodes one stored entry.
     *
     * @throws CorruptEntryException if the checksum does not match or the entry cannot be parsed
     */
    public TraceEvent decode(NodeId node, byte[] stored) {
        return decode(node, stored, 0, stored.length);
    }

    /**
     * Decodes the stored entry in the {@code length} bytes of {@code stored} from {@code offset} (a buffer the caller
     * may reuse once this returns).
     *
     * @throws CorruptEntryException if the checksum does not match or the entry cannot be parsed
     */
    public TraceEvent decode(NodeId node, byte[] stored, int offset, int length) {
        if (length < HEADER_BYTES) {
            throw new CorruptEntryException("entry is " + length + " bytes long, shorter than its header");
        }
        crc.reset();
        crc.update(stored, offset + 4, length - 4);
        int expected = (stored[offset] & 0xFF) | (stored[offset + 1] & 0xFF) << 8 | (stored[offset + 2] & 0xFF) << 16
                | (stored[offset + 3] & 0xFF) << 24;
        if ((int) crc.getValue() != expected) {
            throw new CorruptEntryException(String.format(
                    "checksum mismatch (stored CRC32C %08x, computed %08x)", expected, (int) crc.getValue()));
        }
        try {
            Reader in = new Reader(stored, offset + 4, offset + length);
            byte flags = in.readByte();
            if ((flags & ~FLAG_LZ4) != 0) {
                throw new CorruptEntryException("unknown entry flags " + flags);
            }
            if ((flags & FLAG_LZ4) != 0) {
                int rawLength = Math.toIntExact(in.readStopBit());
                if (rawLength < 0 || rawLength > 64 << 20) {
                    throw new CorruptEntryException("implausible uncompressed length " + rawLength);
                }
                if (raw.length < rawLength) {
                    raw = new byte[Math.max(rawLength, raw.length * 2)];
                }
                int read = decompressor.decompress(stored, in.position, raw, 0, rawLength);
                if (in.position + read != in.limit) {
                    throw new CorruptEntryException((in.limit - in.position - read) + " unexpected bytes after the"
                            + " compressed body");
                }
                in = new Reader(raw, 0, rawLength);
            }
            return readBody(node, in);
        } catch (CorruptEntryException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CorruptEntryException("unreadable entry: " + e, e);
        }
    }

    private TraceEvent readBody(NodeId node, Reader in) {
        byte type = in.readByte();
        int incarnation = Math.toIntExact(in.readStopBit());
        long seq = in.readStopBit();
        long lamport = in.readStopBit();
        long atMillis = in.readStopBit();
        if (!EventKind.isCode(type)) {
            throw new CorruptEntryException("unknown event type code " + type);
        }
        Event event = switch (EventKind.ofCode(type)) {
            case START -> {
                String nodeClass = readUtf8(in);
                int argCount = Math.toIntExact(in.readStopBit());
                Map<String, String> args = new LinkedHashMap<>();
                for (int i = 0; i < argCount; i++) {
                    args.put(readUtf8(in), readUtf8(in));
                }
                int peerCount = Math.toIntExact(in.readStopBit());
                List<NodeId> peers = new ArrayList<>(Math.min(peerCount, 1024));
                for (int i = 0; i < peerCount; i++) {
                    peers.add(readNodeId(in));
                }
                yield new Event.Start(nodeClass, args, peers);
            }
            case RECEIVE -> new Event.Receive(readNodeId(in), in.readStopBit(), in.readStopBit(), readPayload(in));
            case SEND -> new Event.Send(readNodeId(in), in.readStopBit(), readClass(in), in.readLong());
            case TIMER -> new Event.TimerFired(in.readStopBit(), readPayload(in));
            case CLOCK -> new Event.ClockRead(in.readStopBit());
            case RANDOM -> new Event.RandomDraw(in.readLong());
            case STORAGE_READ -> {
                String key = readUtf8(in);
                long length = in.readStopBit();
                byte[] value = null;
                if (length > 0) {
                    value = in.readBytes(Math.toIntExact(length - 1));
                }
                yield new Event.StorageRead(key, value);
            }
            case CRASH -> new Event.Crash(Math.toIntExact(in.readStopBit()));
        };
        if (in.remaining() != 0) {
            throw new CorruptEntryException(in.remaining() + " unexpected bytes after a " + event.typeName()
                    + " event");
        }
        return new TraceEvent(node, incarnation, seq, lamport, atMillis, event);
    }

    private Payload readPayload(Reader in) {
        String type = readClass(in);
        int length = Math.toIntExact(in.readStopBit());
        if (length < 0 || length > in.remaining()) {
            throw new CorruptEntryException("payload length " + length + " exceeds the entry");
        }
        return new Payload(type, in.readBytes(length));
    }

    private String readClass(Reader in) {
        if (formatVersion == 1) {
            return readUtf8(in);
        }
        long id = in.readStopBit();
        if (id == 0) {
            String name = in.readUtf8(readUtf8Length(in));
            classNames.add(name);
            return name;
        }
        if (id < 0 || id > classNames.size()) {
            throw new CorruptEntryException("class " + id + " is not defined in the log before this entry ("
                    + classNames.size() + " are)");
        }
        return classNames.get((int) id - 1);
    }

    private String readUtf8(Reader in) {
        int length = readUtf8Length(in);
        return decodedStrings.string(in, length);
    }

    private NodeId readNodeId(Reader in) {
        int length = readUtf8Length(in);
        return decodedStrings.nodeId(in, length);
    }

    private static int readUtf8Length(Reader in) {
        long length = in.readStopBit();
        if (length < 0 || length > in.remaining()) {
            throw new CorruptEntryException("string length " + length + " exceeds the entry");
        }
        return (int) length;
    }

    /** A growable byte array written from the start. */
    static final class Writer {
        byte[] bytes;
        int length;

        Writer(int capacity) {
            bytes = new byte[capacity];
        }

        void clear() {
            length = 0;
        }

        void ensure(int capacity) {
            if (bytes.length < capacity) {
                bytes = Arrays.copyOf(bytes, Math.max(capacity, bytes.length * 2));
            }
        }

        void writeByte(byte value) {
            ensure(length + 1);
            bytes[length++] = value;
        }

        void write(byte[] source, int offset, int count) {
            ensure(length + count);
            System.arraycopy(source, offset, bytes, length, count);
            length += count;
        }

        void writeLong(long value) {
            ensure(length + 8);
            for (int i = 0; i < 8; i++) {
                bytes[length++] = (byte) (value >>> (8 * i));
            }
        }

        /** Seven bits a byte, low first, the high bit set on all but the last; negatives as ~n and a 0 byte. */
        void writeStopBit(long n) {
            ensure(length + 11);
            boolean negative = n < 0;
            if (negative) {
                n = ~n;
            }
            long rest;
            while ((rest = n >>> 7) != 0) {
                bytes[length++] = (byte) (0x80 | n);
                n = rest;
            }
            if (negative) {
                bytes[length++] = (byte) (0x80 | n);
                bytes[length++] = 0;
            } else {
                bytes[length++] = (byte) n;
            }
        }

        /** The count of UTF-8 bytes, then each char as 1 to 3 bytes (a surrogate pair as two 3-byte chars). */
        void writeUtf8(String text) {
            int utf8Length = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                utf8Length += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            }
            writeStopBit(utf8Length);
            ensure(length + utf8Length);
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c < 0x80) {
                    bytes[length++] = (byte) c;
                } else if (c < 0x800) {
                    bytes[length++] = (byte) (0xC0 | c >> 6);
                    bytes[length++] = (byte) (0x80 | c & 0x3F);
                } else {
                    bytes[length++] = (byte) (0xE0 | c >> 12);
                    bytes[length++] = (byte) (0x80 | c >> 6 & 0x3F);
                    bytes[length++] = (byte) (0x80 | c & 0x3F);
                }
            }
        }
    }

    /** Reads a byte array between {@code position} and {@code limit}; reading past the limit is a corrupt entry. */
    static final class Reader {
        final byte[] bytes;
        int position;
        final int limit;

        Reader(byte[] bytes, int position, int limit) {
            this.bytes = bytes;
            this.position = position;
            this.limit = limit;
        }

        int remaining() {
            return limit - position;
        }

        byte readByte() {
            if (position >= limit) {
                throw new CorruptEntryException("the entry ends early");
            }
            return bytes[position++];
        }

        long readLong() {
            if (limit - position < 8) {
                throw new CorruptEntryException("the entry ends early");
            }
            long value = 0;
            for (int i = 7; i >= 0; i--) {
                value = value << 8 | (bytes[position + i] & 0xFF);
            }
            position += 8;
            return value;
        }

        long readStopBit() {
            long first = readByte();
            if (first >= 0) {
                return first;
            }
            long value = first & 0x7F;
            int shift = 7;
            long b;
            while ((b = readByte()) < 0) {
                value |= (b & 0x7F) << shift;
                shift += 7;
                if (shift > 70) {
                    throw new CorruptEntryException("a stop-bit number longer than 10 bytes");
                }
            }
            if (b != 0) {
                if (shift > 56) {
                    throw new CorruptEntryException("a stop-bit number longer than 9 bytes");
                }
                return value | b << shift;
            }
            if (shift > 63) {
                throw new CorruptEntryException("a negative stop-bit number longer than 10 bytes");
            }
            return ~value;
        }

        byte[] readBytes(int count) {
            if (count < 0 || count > remaining()) {
                throw new CorruptEntryException("the entry ends early");
            }
            byte[] copy = Arrays.copyOfRange(bytes, position, position + count);
            position += count;
            return copy;
        }

        /** Decodes {@code utf8Length} bytes of 1- to 3-byte chars. */
        String readUtf8(int utf8Length) {
            int end = position + utf8Length;
            char[] chars = new char[utf8Length];
            int count = 0;
            while (position < end) {
                int b = bytes[position++] & 0xFF;
                if (b < 0x80) {
                    chars[count++] = (char) b;
                } else if ((b & 0xE0) == 0xC0 && position < end) {
                    chars[count++] = (char) ((b & 0x1F) << 6 | continuation(bytes[position++]));
                } else if ((b & 0xF0) == 0xE0 && position + 1 < end) {
                    int second = continuation(bytes[position++]);
                    chars[count++] = (char) ((b & 0x0F) << 12 | second << 6 | continuation(bytes[position++]));
                } else {
                    throw new CorruptEntryException("malformed UTF-8 in a string");
                }
            }
            return new String(chars, 0, count);
        }

        private static int continuation(byte b) {
            if ((b & 0xC0) != 0x80) {
                throw new CorruptEntryException("malformed UTF-8 in a string");
            }
            return b & 0x3F;
        }
    }

    /**
     * Recently decoded short strings, looked up by their bytes, so that a node id or message class read a million
     * times is one instance (and one {@link NodeId}, validated once).
     */
    private static final class StringCache {
        private static final int SLOTS = 256;
        private static final int MAX_LENGTH = 64;
        private final byte[][] keys = new byte[SLOTS][];
        private final String[] strings = new String[SLOTS];
        private final NodeId[] nodeIds = new NodeId[SLOTS];

        String string(Reader in, int length) {
            if (length > MAX_LENGTH) {
                return in.readUtf8(length);
            }
            return strings[slot(in, length)];
        }

        NodeId nodeId(Reader in, int length) {
            if (length > MAX_LENGTH) {
                return new NodeId(in.readUtf8(length));
            }
            int slot = slot(in, length);
            NodeId id = nodeIds[slot];
            if (id == null) {
                id = new NodeId(strings[slot]);
                nodeIds[slot] = id;
            }
            return id;
        }

        /** The slot holding the string of the next {@code length} bytes, filled if needed; consumes the bytes. */
        private int slot(Reader in, int length) {
            int start = in.position;
            int hash = length;
            for (int i = start; i < start + length; i++) {
                hash = 31 * hash + in.bytes[i];
            }
            int slot = (hash ^ hash >>> 16) & (SLOTS - 1);
            byte[] key = keys[slot];
            if (key != null && Arrays.equals(key, 0, key.length, in.bytes, start, start + length)) {
                in.position = start + length;
                return slot;
            }
            String decoded = in.readUtf8(length);
            keys[slot] = Arrays.copyOfRange(in.bytes, start, start + length);
            strings[slot] = decoded;
            nodeIds[slot] = null;
            return slot;
        }
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
