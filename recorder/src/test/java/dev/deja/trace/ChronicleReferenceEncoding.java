package dev.deja.trace;

import dev.deja.node.NodeId;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.openhft.chronicle.bytes.Bytes;

/**
 * Format 1 as it was first written, with Chronicle Bytes' own stop-bit, string and number encodings: the oracle
 * that the hand-written codec must match byte for byte (and whose entries it must read).
 */
final class ChronicleReferenceEncoding {
    private static final LZ4Compressor LZ4 = LZ4Factory.fastestJavaInstance().fastCompressor();

    private ChronicleReferenceEncoding() {
    }

    /** The body of {@code entry}, uncompressed. */
    static byte[] body(TraceEvent entry) {
        Bytes<byte[]> b = Bytes.allocateElasticOnHeap(256);
        Event event = entry.event();
        b.writeByte(switch (event) {
            case Event.Start s -> (byte) 1;
            case Event.Receive r -> (byte) 2;
            case Event.Send s -> (byte) 3;
            case Event.TimerFired t -> (byte) 4;
            case Event.ClockRead c -> (byte) 5;
            case Event.RandomDraw r -> (byte) 6;
            case Event.StorageRead s -> (byte) 7;
            case Event.Crash c -> (byte) 8;
        });
        b.writeStopBit(entry.incarnation());
        b.writeStopBit(entry.seq());
        b.writeStopBit(entry.lamport());
        b.writeStopBit(entry.atMillis());
        switch (event) {
            case Event.Start s -> {
                b.writeUtf8(s.nodeClass());
                b.writeStopBit(s.args().size());
                for (var e : new TreeMap<>(s.args()).entrySet()) {
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
                payload(b, r.message());
            }
            case Event.Send s -> {
                b.writeUtf8(s.to().value());
                b.writeStopBit(s.messageId());
                b.writeUtf8(s.messageType());
                b.writeLong(s.digest());
            }
            case Event.TimerFired t -> {
                b.writeStopBit(t.timerId());
                payload(b, t.tag());
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
        return b.toByteArray();
    }

    /** The stored entry, LZ4-compressing bodies of at least {@code threshold} bytes when that saves space. */
    static byte[] entry(TraceEvent entry, int threshold) {
        byte[] raw = body(entry);
        Bytes<byte[]> out = Bytes.allocateElasticOnHeap(256);
        out.writeInt(0);
        boolean done = false;
        if (raw.length >= threshold) {
            byte[] compressed = new byte[LZ4.maxCompressedLength(raw.length)];
            int length = LZ4.compress(raw, 0, raw.length, compressed, 0, compressed.length);
            if (length + 3 < raw.length) {
                out.writeByte((byte) 1);
                out.writeStopBit(raw.length);
                out.write(compressed, 0, length);
                done = true;
            }
        }
        if (!done) {
            out.writeByte((byte) 0);
            out.write(raw);
        }
        byte[] stored = out.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(stored, 4, stored.length - 4);
        out.writeInt(0, (int) crc.getValue());
        return out.toByteArray();
    }

    private static void payload(Bytes<?> b, Payload payload) {
        b.writeUtf8(payload.type());
        b.writeStopBit(payload.bytes().length);
        b.write(payload.bytes());
    }
}
