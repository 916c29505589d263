package dev.retrykit.benchmarks;

import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;

import dev.retrykit.spi.RetryContextSnapshot;
import dev.retrykit.cluster.SnapshotCodec;
import org.jspecify.annotations.Nullable;

/**
 * Decodes random bytes and mutations of valid snapshots, as a member or a client with write rights on
 * the shared store could plant them, and checks that decoding only ever returns a snapshot or refuses
 * with {@link IllegalArgumentException}, the documented refusal: no {@link Error}, no other exception.
 * Half the decodes go through a codec that allows a class of this package (so that Java
 * deserialization runs too), half through the JDK-values-only codec. Mutations: bit flips, bytes and
 * ints set to edge values, truncations, duplicated slices (also past {@link SnapshotCodec#MAX_BYTES}),
 * splices of two snapshots; plus random bytes, with and without the format byte in front.
 *
 * <p>Prints the decodes, the time, the outcomes, and the most bytes one decode allocated (measured by
 * the thread's allocation counter, where the JVM has one, after the first {@value #WARM_UP} decodes,
 * which load classes and fill the JDK's reflection caches). Exits with status 1 if anything but the
 * documented refusal escaped. CPU-bound, deterministic for a seed. Run it with a small heap:
 * {@code java -Xmx64m -cp benchmarks/target/benchmarks.jar dev.retrykit.benchmarks.SnapshotFuzz [decodes] [seed]}
 * (default 1,000,000 decodes, seed 36).
 */
public final class SnapshotFuzz {

	private static final int[] EDGE_INTS = { 0, -1, 1, 0x7fffffff, 0x80000000, 0x7ffffff0, 0x10000, 0xffff, 64, 256,
			4096, SnapshotCodec.MAX_BYTES, SnapshotCodec.MAX_BYTES + 1 };

	private static final byte[] EDGE_BYTES = { 0, 1, 2, 11, 12, 13, 14, 30, 0x7f, (byte) 0x80, (byte) 0xff, 0x70, 0x72,
			0x73, 0x75, 0x7d };

	private final SplittableRandom random;

	private final List<byte[]> seeds;

	private final SnapshotCodec allowing = SnapshotCodec.allowing(List.of(Order.class.getName()));

	private final SnapshotCodec valuesOnly = SnapshotCodec.jdkValuesOnly();

	long decoded;

	long refused;

	long escaped;

	long maxAllocated = -1;

	long totalAllocated;

	/** Decodes whose allocation is not measured: the first ones load classes and fill the JDK's reflection caches. */
	static final int WARM_UP = 10_000;

	private final Map<String, Long> escapes = new TreeMap<>();

	SnapshotFuzz(long seed) {
		this.random = new SplittableRandom(seed);
		this.seeds = seeds(this.allowing);
	}

	/** Valid snapshots: fixed fields only, every value type, nesting, sets and maps, an allowed class. */
	static List<byte[]> seeds(SnapshotCodec codec) {
		List<Map<String, Serializable>> attributes = new ArrayList<>();
		attributes.add(Map.of());
		attributes.add(Map.of("order", "A-3", "amount", new BigDecimal("12.50"), "attempt", 2, "big",
				new BigInteger("123456789012345678901234567890"), "id", UUID.nameUUIDFromBytes(new byte[] { 1 })));
		attributes.add(Map.of("at", Instant.parse("2026-11-28T10:15:30Z"), "wait", Duration.ofSeconds(3), "flag", true,
				"bytes", new byte[] { 1, 2, 3 }, "c", 'x', "d", 2.5d, "f", 1.5f, "s", (short) 3, "l", 7L));
		attributes.add(Map.of("lines", new ArrayList<>(List.of("a", List.of(1, 2), Map.of("k", "v"))), "tags",
				new LinkedHashSet<>(List.of("x", "y", "z")), "nested", new HashMap<>(Map.of("m", List.of(List.of(List.of("deep")))))));
		attributes.add(Map.of("order", new Order("A-3", List.of("l1", "l2"), Map.of("eur", 1250L), new Object[] { "x", 2 }),
				"id", "o-1"));
		List<byte[]> seeds = new ArrayList<>();
		int count = 0;
		for (Map<String, Serializable> values : attributes) {
			RetryContextSnapshot snapshot = RetryContextSnapshot.of("payments", count++, count % 2 == 0,
					"java.io.IOException", "broken pipe", 1_700_000_000_000L, values).withWrite(count * 31L, null);
			seeds.add(codec.encode(snapshot));
		}
		return seeds;
	}

	/** Runs {@code decodes} decodes. */
	void run(long decodes) {
		com.sun.management.@Nullable ThreadMXBean threads = allocationCounter();
		long thread = Thread.currentThread().getId();
		for (long i = 0; i < decodes; i++) {
			byte[] bytes = next();
			SnapshotCodec codec = ((i & 1) == 0) ? this.allowing : this.valuesOnly;
			long before = (threads != null) ? threads.getThreadAllocatedBytes(thread) : 0;
			try {
				codec.decode(bytes);
				this.decoded++;
			}
			catch (IllegalArgumentException ex) {
				this.refused++;
			}
			catch (Throwable ex) {
				this.escaped++;
				this.escapes.merge(ex.getClass().getName(), 1L, Long::sum);
			}
			if (threads != null && i >= WARM_UP) {
				long allocated = threads.getThreadAllocatedBytes(thread) - before;
				this.maxAllocated = Math.max(this.maxAllocated, allocated);
				this.totalAllocated += allocated;
			}
		}
	}

	private static com.sun.management.@Nullable ThreadMXBean allocationCounter() {
		if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
				&& threads.isThreadAllocatedMemorySupported()) {
			threads.setThreadAllocatedMemoryEnabled(true);
			return threads;
		}
		return null;
	}

	/** The next bytes to decode: mostly a mutated seed, sometimes random bytes. */
	byte[] next() {
		int kind = this.random.nextInt(10);
		if (kind == 0) {
			byte[] bytes = new byte[this.random.nextInt(4096)];
			this.random.nextBytes(bytes);
			if (bytes.length > 0 && this.random.nextBoolean()) {
				bytes[0] = 2;
			}
			return bytes;
		}
		byte[] bytes = this.seeds.get(this.random.nextInt(this.seeds.size())).clone();
		int mutations = 1 + this.random.nextInt(4);
		for (int m = 0; m < mutations && bytes.length > 0; m++) {
			bytes = mutate(bytes);
		}
		return bytes;
	}

	private byte[] mutate(byte[] bytes) {
		int at = this.random.nextInt(bytes.length);
		switch (this.random.nextInt(6)) {
			case 0 -> bytes[at] ^= (byte) (1 << this.random.nextInt(8));
			case 1 -> bytes[at] = EDGE_BYTES[this.random.nextInt(EDGE_BYTES.length)];
			case 2 -> {
				int value = EDGE_INTS[this.random.nextInt(EDGE_INTS.length)];
				for (int b = 0; b < 4 && at + b < bytes.length; b++) {
					bytes[at + b] = (byte) (value >>> (24 - 8 * b));
				}
			}
			case 3 -> bytes = java.util.Arrays.copyOf(bytes, at);
			case 4 -> {
				// Repeats a slice many times: long runs of elements, and inputs past the size limit.
				int length = 1 + this.random.nextInt(Math.min(64, bytes.length - at));
				int times = 1 + this.random.nextInt((this.random.nextInt(8) == 0) ? 4096 : 16);
				byte[] grown = new byte[(int) Math.min(SnapshotCodec.MAX_BYTES + 64L, bytes.length + (long) length * times)];
				System.arraycopy(bytes, 0, grown, 0, at);
				int to = at;
				for (int t = 0; t < times && to + length <= grown.length; t++, to += length) {
					System.arraycopy(bytes, at, grown, to, length);
				}
				System.arraycopy(bytes, at, grown, to, Math.min(bytes.length - at, grown.length - to));
				bytes = grown;
			}
			default -> {
				byte[] other = this.seeds.get(this.random.nextInt(this.seeds.size()));
				int from = this.random.nextInt(other.length);
				byte[] spliced = java.util.Arrays.copyOf(bytes, at + other.length - from);
				System.arraycopy(other, from, spliced, at, other.length - from);
				bytes = spliced;
			}
		}
		return bytes;
	}

	public static void main(String[] args) {
		long decodes = (args.length > 0) ? Long.parseLong(args[0]) : 1_000_000L;
		long seed = (args.length > 1) ? Long.parseLong(args[1]) : 36L;
		SnapshotFuzz fuzz = new SnapshotFuzz(seed);
		long start = System.nanoTime();
		fuzz.run(decodes);
		long millis = (System.nanoTime() - start) / 1_000_000;
		System.out.printf("decodes %,d in %,d ms (max heap %,d MB), seed %d%n", decodes, millis,
				Runtime.getRuntime().maxMemory() >> 20, seed);
		System.out.printf("decoded %,d, refused with IllegalArgumentException %,d, anything else %,d %s%n", fuzz.decoded,
				fuzz.refused, fuzz.escaped, fuzz.escapes);
		System.out.printf("bytes allocated by one decode, after the first %,d: %s%n", WARM_UP, (fuzz.maxAllocated >= 0)
				? String.format("at most %,d, %,d on average", fuzz.maxAllocated, fuzz.totalAllocated / Math.max(1, decodes - WARM_UP))
				: "not measurable on this JVM");
		if (fuzz.escaped > 0) {
			System.exit(1);
		}
	}

	/** An application class the fuzz's codec allows, holding JDK collections and an array. */
	record Order(String id, List<String> lines, Map<String, Long> amounts, Object[] extras) implements Serializable {
	}

}
