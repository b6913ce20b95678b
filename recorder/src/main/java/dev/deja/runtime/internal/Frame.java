package dev.deja.runtime.internal;

import dev.deja.node.NodeId;
import dev.deja.trace.Payload;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * One message on the wire: {@code length:int32} followed by the sender id, the sender's Lamport clock at
 * the send, the message id, the message class and its CBOR bytes.
 */
public record Frame(NodeId from, long senderLamport, long messageId, Payload message) {
    /** Frames larger than this are refused, so a corrupted length cannot make a reader allocate gigabytes. */
    static final int MAX_FRAME_BYTES = 16 << 20;

    void writeTo(DataOutputStream out) throws IOException {
        byte[] from = this.from.value().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] type = message.type().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int length = 2 + from.length + 8 + 8 + 2 + type.length + 4 + message.bytes().length;
        if (length > MAX_FRAME_BYTES) {
            throw new IOException("message " + message.type() + " is " + length + " bytes; the limit is "
                    + MAX_FRAME_BYTES);
        }
        out.writeInt(length);
        out.writeShort(from.length);
        out.write(from);
        out.writeLong(senderLamport);
        out.writeLong(messageId);
        out.writeShort(type.length);
        out.write(type);
        out.writeInt(message.bytes().length);
        out.write(message.bytes());
    }

    static Frame readFrom(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length <= 0 || length > MAX_FRAME_BYTES) {
            throw new IOException("bad frame length " + length);
        }
        NodeId from = new NodeId(new String(in.readNBytes(in.readUnsignedShort()), java.nio.charset.StandardCharsets.UTF_8));
        long senderLamport = in.readLong();
        long messageId = in.readLong();
        String type = new String(in.readNBytes(in.readUnsignedShort()), java.nio.charset.StandardCharsets.UTF_8);
        int size = in.readInt();
        if (size < 0 || size > length) {
            throw new IOException("bad payload length " + size);
        }
        byte[] bytes = in.readNBytes(size);
        if (bytes.length != size) {
            throw new IOException("connection closed inside a frame");
        }
        return new Frame(from, senderLamport, messageId, new Payload(type, bytes));
    }
}
