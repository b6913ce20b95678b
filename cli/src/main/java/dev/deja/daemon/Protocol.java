package dev.deja.daemon;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client-server protocol: the client sends one {@link Request}; the server answers with frames (a type byte,
 * a length, the bytes) until an {@link #EXIT} frame, or with one {@link #DECLINED} or {@link #REFUSED} frame. While
 * the command runs, the client may send {@link #INTERRUPT} frames (its user pressed Ctrl-C).
 * Version-checked, so that a client and a server of different builds never misread each other.
 */
final class Protocol {
    static final int MAGIC = 0x44454a41; // "DEJA"
    static final int VERSION = 2;

    /** Bytes the command wrote to standard output. */
    static final byte OUT = 1;
    /** Bytes the command wrote to standard error. */
    static final byte ERR = 2;
    /** The command's exit status (4 bytes); the last frame. */
    static final byte EXIT = 3;
    /** The server will not run this request (a {@link Declined} reason); the client runs the command itself. */
    static final byte DECLINED = 4;
    /** The connecting user is not the server's; a message follows. */
    static final byte REFUSED = 5;
    /** Client to server, empty: the user pressed Ctrl-C, which a command such as explore takes as "stop cleanly". */
    static final byte INTERRUPT = 6;

    /** Why a server declined a request. */
    enum Declined {
        /** Another build of Deja: the server stops; the client starts a new one. */
        STALE,
        /** Another working directory or environment: the server stops; the client starts a new one. */
        ELSEWHERE,
        /** Running another command: the client runs this one itself. */
        BUSY,
        /** Stopping: the client starts a new one once it is gone. */
        STOPPING
    }

    /** What a client asks. */
    enum Kind { RUN, STATUS, STOP }

    /** Longest string or argument list accepted, against a confused or hostile peer. */
    private static final int MAX_BYTES = 1 << 20;
    private static final int MAX_ITEMS = 10_000;

    private Protocol() {
    }

    /**
     * One request.
     *
     * @param build           the client's build of Deja ({@link BuildId})
     * @param workingDirectory the client's working directory
     * @param environment     the environment variables that can change a command's output
     * @param terminal        whether the client's console is a terminal (picocli colours its messages then)
     * @param stdoutEncoding  the encoding the client's JVM would print to standard output with
     * @param stderrEncoding  the same for standard error
     * @param arguments       the command line
     */
    record Request(Kind kind, String build, String workingDirectory, Map<String, String> environment, boolean terminal,
                   String stdoutEncoding, String stderrEncoding, List<String> arguments) {
        void write(DataOutputStream out) throws IOException {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeByte(kind.ordinal());
            writeString(out, build);
            writeString(out, workingDirectory);
            out.writeInt(environment.size());
            for (Map.Entry<String, String> entry : environment.entrySet()) {
                writeString(out, entry.getKey());
                writeString(out, entry.getValue());
            }
            out.writeBoolean(terminal);
            writeString(out, stdoutEncoding);
            writeString(out, stderrEncoding);
            out.writeInt(arguments.size());
            for (String argument : arguments) {
                writeString(out, argument);
            }
            out.flush();
        }

        static Request read(DataInputStream in) throws IOException {
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                throw new IOException("not a request of this version of the deja client");
            }
            int kind = in.readUnsignedByte();
            if (kind >= Kind.values().length) {
                throw new IOException("unknown request kind " + kind);
            }
            String build = readString(in);
            String directory = readString(in);
            int variables = count(in);
            Map<String, String> environment = new LinkedHashMap<>();
            for (int i = 0; i < variables; i++) {
                environment.put(readString(in), readString(in));
            }
            boolean terminal = in.readBoolean();
            String stdoutEncoding = readString(in);
            String stderrEncoding = readString(in);
            int size = count(in);
            List<String> arguments = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                arguments.add(readString(in));
            }
            return new Request(Kind.values()[kind], build, directory, environment, terminal, stdoutEncoding,
                    stderrEncoding, arguments);
        }
    }

    static void writeString(DataOutputStream out, String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readString(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_BYTES) {
            throw new IOException("a string of " + length + " bytes");
        }
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    private static int count(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > MAX_ITEMS) {
            throw new IOException("a list of " + count + " items");
        }
        return count;
    }

    /** Writes one frame; callers serialize their calls. */
    static void writeFrame(DataOutputStream out, byte type, byte[] bytes, int offset, int length) throws IOException {
        out.writeByte(type);
        out.writeInt(length);
        out.write(bytes, offset, length);
    }

    /** A frame read from the server; {@code null} at the end of the stream. */
    record Frame(byte type, byte[] bytes) {
        static Frame read(DataInputStream in) throws IOException {
            int type = in.read();
            if (type < 0) {
                return null;
            }
            int length;
            try {
                length = in.readInt();
            } catch (EOFException e) {
                return null;
            }
            if (length < 0 || length > MAX_BYTES) {
                throw new IOException("a frame of " + length + " bytes");
            }
            byte[] bytes = in.readNBytes(length);
            if (bytes.length < length) {
                return null;
            }
            return new Frame((byte) type, bytes);
        }

        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        int status() {
            return ((bytes[0] & 0xff) << 24) | ((bytes[1] & 0xff) << 16) | ((bytes[2] & 0xff) << 8) | (bytes[3] & 0xff);
        }
    }
}
