package dev.retrykit.cluster;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import dev.retrykit.spi.RetryContextSnapshot;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fast version of the benchmarks module's {@code SnapshotFuzz} (which runs a million decodes under
 * {@code -Xmx64m}): random bytes and mutations of valid snapshots, decoded with and without an allowed
 * class, only ever give a snapshot or the documented refusal.
 */
class SnapshotFuzzTests {

	private static final int DECODES = 20_000;

	private static final int[] EDGE_INTS = { 0, -1, 0x7fffffff, 0x80000000, 0x10000, 256, SnapshotCodec.MAX_BYTES + 1 };

	private final SplittableRandom random = new SplittableRandom(36);

	private final SnapshotCodec allowing = SnapshotCodec.allowing(List.of(SnapshotCodecTrustTests.Basket.class.getName()));

	private final SnapshotCodec valuesOnly = SnapshotCodec.jdkValuesOnly();

	private final List<byte[]> seeds = new ArrayList<>();

	@Test
	void decodingRandomAndMutatedBytesOnlyEverRefusesWithIllegalArgumentException() {
		seed(Map.of());
		seed(Map.of("order", "A-3", "amount", new BigDecimal("12.50"), "at", Instant.parse("2026-11-28T10:15:30Z"),
				"bytes", new byte[] { 1, 2 }, "n", 7L));
		seed(Map.of("lines", new ArrayList<>(List.of("a", List.of(1, 2), Map.of("k", "v"))), "tags",
				new LinkedHashSet<>(List.of("x", "y"))));
		seed(Map.of("basket", new SnapshotCodecTrustTests.Basket(new ArrayList<>(List.of("a")), new HashMap<>(Map.of("k", 1)),
				new LinkedHashSet<>(List.of("t")), new Object[] { "x", 2 }, Map.of("n", List.of(1)))));
		this.seeds.add(PlantedBytes.snapshotWithRawAttribute("payments", 1, "set", PlantedBytes.setOfCollidingLists(64)));
		this.seeds.add(PlantedBytes.snapshotWithSerializedAttribute("payments", 1, "planted",
				PlantedBytes.serializedObjectNamed("dev.retrykit.cluster.SnapshotCodecTrustTests$Basket")));
		int decoded = 0;
		int refused = 0;
		List<String> escaped = new ArrayList<>();
		for (int i = 0; i < DECODES; i++) {
			byte[] bytes = next();
			try {
				(((i & 1) == 0) ? this.allowing : this.valuesOnly).decode(bytes);
				decoded++;
			}
			catch (IllegalArgumentException ex) {
				refused++;
			}
			catch (Throwable ex) {
				escaped.add(ex.toString());
			}
		}
		assertThat(escaped).as("anything but the documented refusal").isEmpty();
		assertThat(decoded).as("some mutations still decode").isGreaterThan(DECODES / 10);
		assertThat(refused).as("some are refused").isGreaterThan(DECODES / 10);
	}

	private void seed(Map<String, Serializable> attributes) {
		this.seeds.add(this.allowing.encode(RetryContextSnapshot.of("payments", this.seeds.size(), false,
				"java.io.IOException", "broken", 1L, attributes).withWrite(7L, null)));
	}

	private byte[] next() {
		if (this.random.nextInt(10) == 0) {
			byte[] bytes = new byte[this.random.nextInt(2048)];
			this.random.nextBytes(bytes);
			if (bytes.length > 0) {
				bytes[0] = (byte) SnapshotCodec.FORMAT;
			}
			return bytes;
		}
		byte[] bytes = this.seeds.get(this.random.nextInt(this.seeds.size())).clone();
		for (int m = 1 + this.random.nextInt(3); m > 0 && bytes.length > 0; m--) {
			int at = this.random.nextInt(bytes.length);
			switch (this.random.nextInt(4)) {
				case 0 -> bytes[at] ^= (byte) (1 << this.random.nextInt(8));
				case 1 -> {
					int value = EDGE_INTS[this.random.nextInt(EDGE_INTS.length)];
					for (int b = 0; b < 4 && at + b < bytes.length; b++) {
						bytes[at + b] = (byte) (value >>> (24 - 8 * b));
					}
				}
				case 2 -> bytes = Arrays.copyOf(bytes, at);
				default -> {
					byte[] other = this.seeds.get(this.random.nextInt(this.seeds.size()));
					int from = this.random.nextInt(other.length);
					byte[] spliced = Arrays.copyOf(bytes, at + other.length - from);
					System.arraycopy(other, from, spliced, at, other.length - from);
					bytes = spliced;
				}
			}
		}
		return bytes;
	}

}
