package org.pthread4j;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackoffTest {
    @Test
    void theStepDoublesUpToItsCap() {
        assertEquals(64, Backoff.MAX_STEP, "default cap");
        assertEquals(2, Backoff.pause(1));
        assertEquals(4, Backoff.pause(2));
        assertEquals(64, Backoff.pause(32));
        assertEquals(64, Backoff.pause(64), "stays at the cap");
        assertEquals(64, Backoff.pause(40), "never past the cap");
    }

    @Test
    void aSpinThatNeverSeesTheWordFreeEndsWithinItsBudget() {
        assertEquals(1000, Backoff.PAUSES, "default budget");
        int tests = 0;
        int paused = 0;
        for (int left = Backoff.PAUSES, step = 1; left > 0; left -= step, step = Backoff.pause(step)) {
            tests++;
            paused += step;
        }
        // 1 + 2 + ... + 64 = 127 in 7 tests, then 64 at a time: 7 + 14 tests, 1023 pauses.
        assertEquals(21, tests);
        assertTrue(paused >= Backoff.PAUSES && paused < Backoff.PAUSES + Backoff.MAX_STEP, "paused " + paused);
    }
}
