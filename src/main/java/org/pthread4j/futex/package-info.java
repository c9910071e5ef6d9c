/**
 * The futex layer: wait, wake and requeue on 32-bit words, with a kernel backend
 * ({@link org.pthread4j.futex.LinuxFutex}) and an in-JVM parking backend
 * ({@link org.pthread4j.futex.ParkingFutex}). Primitives ask this layer to sleep and wake;
 * it never knows which primitive it serves. {@link org.pthread4j.futex.SampleFutexLock} is the
 * smallest lock built on it (one word, 0/1/2), the first lesson of {@code docs/01-futex.md};
 * {@link org.pthread4j.futex.FutexTrace} records the layer's operations in the order they happen.
 */
package org.pthread4j.futex;
