package org.pthread4j.cli.workload;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;

/**
 * A private copy of a loop class for each measured implementation, so that the JIT profiles and
 * compiles each implementation's loop on its own, as it would the loop of a program that uses
 * only that lock. With one shared loop, its call of {@code lock()} sees every implementation the
 * run has measured, turns megamorphic and stops inlining, and the figures then measure the
 * dispatch as much as the lock (JMH generates one class per benchmark method for the same
 * reason). The copy is a hidden class defined from the template's own class file.
 */
final class Isolated {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    private Isolated() {
    }

    /**
     * @param template a top-level class of this package with exactly one constructor
     * @param args     the constructor's arguments
     * @param <T>      what the template implements
     * @return a new instance of a fresh copy of {@code template}
     */
    static <T> T copy(final Class<? extends T> template, final Object... args) {
        final Constructor<?>[] ctors = template.getDeclaredConstructors();
        if (ctors.length != 1 || template.getEnclosingClass() != null) {
            throw new IllegalArgumentException(template + ": a top-level class with one constructor");
        }
        try (InputStream in = template.getResourceAsStream(template.getSimpleName() + ".class")) {
            if (in == null) {
                throw new IllegalStateException("no class file for " + template);
            }
            final MethodHandles.Lookup copy = LOOKUP.defineHiddenClass(in.readAllBytes(), true);
            final MethodHandle ctor = copy.findConstructor(copy.lookupClass(),
                MethodType.methodType(void.class, ctors[0].getParameterTypes()));
            @SuppressWarnings("unchecked")
            final T t = (T) ctor.invokeWithArguments(args);
            return t;
        } catch (final IOException | ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy " + template + ": " + e, e);
        } catch (final RuntimeException | Error e) {
            throw e;
        } catch (final Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
