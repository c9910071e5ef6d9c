package org.pthread4j;

import org.junit.jupiter.api.Test;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.Timespec;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The four attribute types have one shape: the same kind of type, factories, accessors and equality. */
class AttrTest {
    private static final List<Class<?>> TYPES = List.of(MutexAttr.class, CondAttr.class, RwLockAttr.class, BarrierAttr.class);

    @Test
    void everyAttributeTypeIsAFinalClassMadeOnlyByItsFactoriesAndBuilder() throws ReflectiveOperationException {
        for (final Class<?> type : TYPES) {
            assertTrue(Modifier.isFinal(type.getModifiers()) && !type.isRecord(), type + " is a final class");
            assertEquals(0, type.getConstructors().length, type + " has no public constructor");
            final Class<?> builder = Class.forName(type.getName() + "$Builder");
            assertEquals(0, builder.getConstructors().length, builder + " has no public constructor");
            for (final String field : List.of("DEFAULT", "PSHARED")) {
                assertSame(type, type.getField(field).getType(), type + "." + field);
            }
            assertStatic(type.getMethod("privateOn", Futex.class), type);
            assertStatic(type.getMethod("builder"), builder);
            assertSame(builder, type.getMethod("toBuilder").getReturnType());
            assertSame(boolean.class, type.getMethod("pshared").getReturnType());
            assertSame(Futex.class, type.getMethod("futex").getReturnType());
            final Object b = type.getMethod("builder").invoke(null);
            assertSame(b, builder.getMethod("pshared", boolean.class).invoke(b, true));
            assertSame(b, builder.getMethod("futex", Futex.class).invoke(b, (Object) null));
            assertSame(type, builder.getMethod("build").invoke(b).getClass());
        }
    }

    @Test
    void theFactoriesAreShortHandsForTheBuilder() {
        final Futex linux = Futexes.linux();
        assertEquals(MutexAttr.builder().build(), MutexAttr.DEFAULT);
        assertEquals(MutexAttr.builder().pshared(true).build(), MutexAttr.PSHARED);
        assertEquals(MutexAttr.builder().futex(linux).build(), MutexAttr.privateOn(linux));
        assertEquals(CondAttr.builder().build(), CondAttr.DEFAULT);
        assertEquals(CondAttr.builder().pshared(true).build(), CondAttr.PSHARED);
        assertEquals(CondAttr.builder().futex(linux).build(), CondAttr.privateOn(linux));
        assertEquals(RwLockAttr.builder().build(), RwLockAttr.DEFAULT);
        assertEquals(RwLockAttr.builder().pshared(true).build(), RwLockAttr.PSHARED);
        assertEquals(RwLockAttr.builder().futex(linux).build(), RwLockAttr.privateOn(linux));
        assertEquals(BarrierAttr.builder().build(), BarrierAttr.DEFAULT);
        assertEquals(BarrierAttr.builder().pshared(true).build(), BarrierAttr.PSHARED);
        assertEquals(BarrierAttr.builder().futex(linux).build(), BarrierAttr.privateOn(linux));
        assertFalse(RwLockAttr.DEFAULT.pshared());
        assertTrue(BarrierAttr.PSHARED.pshared());
        assertNull(CondAttr.DEFAULT.futex());
        assertSame(linux, MutexAttr.privateOn(linux).futex());
    }

    @Test
    void toBuilderRebuildsEqualAttributesWithEqualHashCodes() {
        final List<Object> attrs = List.of(
            MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).pshared(true).futex(Futexes.linux()).build(),
            CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).futex(Futexes.parking()).build(),
            RwLockAttr.privateOn(Futexes.linuxNoPrivate()), BarrierAttr.PSHARED);
        final List<Object> rebuilt = List.of(((MutexAttr) attrs.get(0)).toBuilder().build(),
            ((CondAttr) attrs.get(1)).toBuilder().build(), ((RwLockAttr) attrs.get(2)).toBuilder().build(),
            ((BarrierAttr) attrs.get(3)).toBuilder().build());
        assertEquals(attrs, rebuilt);
        for (int i = 0; i < attrs.size(); i++) {
            assertEquals(attrs.get(i).hashCode(), rebuilt.get(i).hashCode(), attrs.get(i).toString());
        }
    }

    @Test
    void attributesOfAnotherTypeOrWithAnotherValueDiffer() {
        assertNotEquals(RwLockAttr.DEFAULT, BarrierAttr.DEFAULT);
        assertNotEquals(RwLockAttr.PSHARED, BarrierAttr.PSHARED);
        assertNotEquals(MutexAttr.DEFAULT, MutexAttr.builder().type(MutexAttr.ERRORCHECK).build());
        assertNotEquals(MutexAttr.PSHARED, MutexAttr.builder().pshared(true).robust(true).build());
        assertNotEquals(CondAttr.DEFAULT, CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).build());
        assertNotEquals(CondAttr.DEFAULT, CondAttr.privateOn(Futexes.linux()));
    }

    @Test
    void toStringNamesEveryAttributeInOneFormat() {
        assertEquals("MutexAttr[NORMAL, private]", MutexAttr.DEFAULT.toString());
        assertEquals("MutexAttr[RECURSIVE, robust, pshared]",
            MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).pshared(true).build().toString());
        assertEquals("CondAttr[CLOCK_MONOTONIC, private, parking]",
            CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).futex(Futexes.parking()).build().toString());
        assertEquals("RwLockAttr[pshared]", RwLockAttr.PSHARED.toString());
        assertEquals("BarrierAttr[private, linux]", BarrierAttr.privateOn(Futexes.linux()).toString());
    }

    private static void assertStatic(final Method m, final Class<?> returns) {
        assertTrue(Modifier.isStatic(m.getModifiers()), m + " is static");
        assertSame(returns, m.getReturnType(), m.toString());
    }
}
