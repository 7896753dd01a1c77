package org.jacap.server;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jacap.tokenizer.ChatMessage;

/**
 * The slots and the queue in front of them. A request takes the free slot whose last
 * conversation shares the most messages with its own (so its cache is reused), else the one
 * unused the longest; with every slot busy it waits in a bounded queue, and beyond that it is
 * refused (429).
 */
final class SlotPool {
    private final Slot[] slots;
    private final boolean[] busy;
    private final int queueCapacity;
    private final ReentrantLock lock = new ReentrantLock(true); // fair: requests are served in arrival order
    private final Condition freed = lock.newCondition();
    private int waiting;
    private long tick;

    SlotPool(List<Slot> slots, int queueCapacity) {
        this.slots = slots.toArray(Slot[]::new);
        this.busy = new boolean[this.slots.length];
        this.queueCapacity = queueCapacity;
    }

    /**
     * A free slot for {@code conversation} (empty for raw completions), waiting at most {@code timeoutNanos}.
     *
     * @throws ApiError 429 when the queue is full or the wait timed out
     */
    Slot acquire(List<ChatMessage> conversation, long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            if (freeSlot(conversation) < 0) {
                if (waiting >= queueCapacity) {
                    throw new ApiError(
                            429,
                            "rate_limit_error",
                            null,
                            "the server is busy: " + slots.length + " slots in use and " + waiting
                                    + " requests queued (the queue's limit); retry later");
                }
                waiting++;
                try {
                    long left = timeoutNanos;
                    while (freeSlot(conversation) < 0) {
                        if (left <= 0) {
                            throw new ApiError(429, "rate_limit_error", null, "timed out waiting for a free slot");
                        }
                        left = freed.awaitNanos(left);
                    }
                } finally {
                    waiting--;
                }
            }
            int i = freeSlot(conversation);
            busy[i] = true;
            return slots[i];
        } finally {
            lock.unlock();
        }
    }

    void release(Slot slot, List<ChatMessage> history) {
        lock.lock();
        try {
            slot.finished(history, ++tick);
            busy[slot.id] = false;
            freed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private int freeSlot(List<ChatMessage> conversation) {
        int best = -1;
        int bestShared = -1;
        for (int i = 0; i < slots.length; i++) {
            if (busy[i]) {
                continue;
            }
            int shared = slots[i].sharedMessages(conversation);
            if (shared > bestShared || (shared == bestShared && slots[i].lastUsed() < slots[best].lastUsed())) {
                best = i;
                bestShared = shared;
            }
        }
        return best;
    }

    int busySlots() {
        lock.lock();
        try {
            int n = 0;
            for (boolean b : busy) {
                n += b ? 1 : 0;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    int waiting() {
        lock.lock();
        try {
            return waiting;
        } finally {
            lock.unlock();
        }
    }

    List<Slot> slots() {
        return List.of(slots);
    }

    /** Waits for every running request to end (at shutdown). */
    boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lock();
        try {
            while (busySlotsLocked() > 0) {
                if (left <= 0) {
                    return false;
                }
                left = freed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private int busySlotsLocked() {
        int n = 0;
        for (boolean b : busy) {
            n += b ? 1 : 0;
        }
        return n;
    }
}
