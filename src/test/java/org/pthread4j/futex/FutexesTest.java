package org.pthread4j.futex;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FutexesTest {
    @Test
    void theDefaultPrivateBackendFollowsTheSystemProperty() {
        // ./mvnw test -Dpthread4j.futex=linux-noprivate runs every private primitive on the fallback path
        final String wanted = System.getProperty(Futexes.PROPERTY, "parking");
        assertEquals(wanted, Futexes.defaultPrivate().name());
        assertTrue(Futexes.shared().supportsShared());
    }

    @Test
    void backendsAreFoundByNameAndUnknownNamesAreRefused() {
        assertSame(Futexes.parking(), Futexes.byName("parking"));
        assertSame(Futexes.linux(), Futexes.byName(" Linux "));
        assertSame(Futexes.linuxNoPrivate(), Futexes.byName("linux-noprivate"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Futexes.byName("kqueue"));
        assertTrue(e.getMessage().contains("kqueue"));
    }
}
