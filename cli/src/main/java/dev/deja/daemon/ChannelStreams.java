package dev.deja.daemon;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Streams over a socket channel that read and write it directly, so that one thread may read while another
 * writes (the JDK's {@code Channels} streams take the channel's blocking lock for either, and would deadlock).
 */
final class ChannelStreams {
    private ChannelStreams() {
    }

    static InputStream in(SocketChannel channel) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int read = read(one, 0, 1);
                return read < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] bytes, int offset, int length) throws IOException {
                if (length == 0) {
                    return 0;
                }
                return channel.read(ByteBuffer.wrap(bytes, offset, length));
            }
        };
    }

    static OutputStream out(SocketChannel channel) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
        };
    }
}
