package org.pthread4j.futex;

import org.pthread4j.internal.ThreadIds;

import org.pthread4j.internal.Syscall;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadIdsTest {
    @Test
    void aPlatformThreadsIdIsItsKernelTid() throws Exception {
        final AtomicInteger id = new AtomicInteger();
        final AtomicInteger tid = new AtomicInteger();
        final Thread t = Thread.ofPlatform().start(() -> {
            id.set(ThreadIds.current());
            tid.set(Syscall.gettid());
            assertEquals(id.get(), ThreadIds.current(), "cached");
        });
        t.join();
        assertEquals(tid.get(), id.get());
        assertTrue(ThreadIds.isKernelTid(id.get()));
    }

    @Test
    void virtualThreadsGetDistinctIdsThatNoKernelTidCanEqual() throws Exception {
        final Set<Integer> ids = ConcurrentHashMap.newKeySet();
        final Thread[] threads = new Thread[100];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = Thread.ofVirtual().start(() -> {
                final int id = ThreadIds.current();
                assertFalse(ThreadIds.currentIsKernelTid());
                assertTrue(id >= ThreadIds.VIRTUAL_BASE && id <= ThreadIds.MAX_ID, "id " + id);
                ids.add(id);
            });
        }
        for (final Thread t : threads) {
            t.join();
        }
        assertEquals(threads.length, ids.size());
    }
}
