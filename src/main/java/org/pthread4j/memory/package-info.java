/**
 * Off-heap memory for synchronization words: private blocks, {@code MAP_SHARED} file mappings
 * and views of Agrona buffers, with bounds, alignment and use-after-close checked so that a
 * mistake throws instead of crashing the JVM.
 */
package org.pthread4j.memory;
