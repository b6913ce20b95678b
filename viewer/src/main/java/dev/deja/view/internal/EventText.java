package dev.deja.view.internal;

import dev.deja.trace.Event;
import dev.deja.trace.EventJson;
import dev.deja.trace.TraceEvent;
import dev.deja.view.TraceModel;

/** One line saying what an entry is, with its message content when the trace has it. */
public final class EventText {
    private EventText() {
    }

    /** E.g. {@code receive Begin from n2 (msg 1:5) {"round":4,"value":"v-n1"}}. */
    public static String describe(TraceModel model, int position) {
        TraceEvent entry = model.entry(position);
        String content = model.content(position);
        return switch (entry.event()) {
            case Event.Start start -> "start " + ColumnarTraceModel.simpleName(start.nodeClass()) + " (incarnation "
                    + entry.incarnation() + ")";
            case Event.Receive receive -> "receive " + receive.message().simpleType() + " from " + receive.from()
                    + " (msg " + EventJson.messageId(receive.messageId()) + ") " + content;
            case Event.Send send -> "send " + ColumnarTraceModel.simpleName(send.messageType()) + " to " + send.to()
                    + " (msg " + EventJson.messageId(send.messageId()) + ")" + (content.isEmpty()
                    ? (model.peerLane(position) >= 0 ? " never received" : "") : " " + content);
            case Event.TimerFired timer -> "timer " + timer.timerId() + " " + content;
            case Event.Crash crash -> "crash: incarnation " + crash.crashedIncarnation() + " ended without a clean shutdown";
            case Event.ClockRead clock -> "clock " + clock.millis() + " ms";
            case Event.RandomDraw random -> "random " + random.value();
            case Event.StorageRead read -> "storage-read " + read.key() + " = "
                    + (read.value() == null ? "(absent)" : read.value().length + " bytes");
        };
    }
}
