/**
 * The futex layer: wait, wake and requeue on 32-bit words, with a kernel backend
 * ({@link org.pthread4j.futex.LinuxFutex}) and an in-JVM parking backend
 * ({@link org.pthread4j.futex.ParkingFutex}). Primitives ask this layer to sleep and wake;
 * it never knows which primitive it serves.
 */
package org.pthread4j.futex;
