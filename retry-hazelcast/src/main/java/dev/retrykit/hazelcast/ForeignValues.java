package dev.retrykit.hazelcast;

import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import com.hazelcast.map.IMap;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import org.jspecify.annotations.Nullable;

/**
 * Reads and replaces what anything that can reach the cluster may have put in the engine's maps: a value
 * of another type than the engine writes, or one this instance cannot deserialize (its class is missing,
 * or the Java serialization filter refuses it). Such a value is read as {@link #UNREADABLE} instead of
 * failing, and replaced under the key's lock, since a compare-and-set needs a value it could not read:
 * while the lock is held, the other replicas' writes of that key wait (Hazelcast's map operations honour
 * key locks), and the lock's lease frees it if this replica dies holding it. Stateless and thread-safe.
 */
final class ForeignValues {

	/** What a value that cannot be read, or is not what the engine writes there, reads as. */
	static final Object UNREADABLE = new Object() {

		@Override
		public String toString() {
			return "(a value that is not what retrykit writes, or that cannot be deserialized here)";
		}

	};

	/** How long a replacement waits for the key's lock; past it, it reports that it did not replace. */
	private static final long LOCK_WAIT_MILLIS = 50;

	/** How long a lock is held at most, should this replica die holding it. */
	private static final long LOCK_LEASE_MILLIS = 5_000;

	private ForeignValues() {
	}

	/**
	 * @return the value, {@code null} if there is none, or {@link #UNREADABLE} if it cannot be deserialized
	 * here or {@code foreign} says it is not what the engine writes
	 */
	static @Nullable Object read(IMap<String, Object> map, String key, Predicate<Object> foreign) {
		Object value;
		try {
			value = map.get(key);
		}
		catch (HazelcastSerializationException | SecurityException ex) {
			return UNREADABLE;
		}
		return (value != null && foreign.test(value)) ? UNREADABLE : value;
	}

	/**
	 * Replaces the value at the key if it still reads as {@link #UNREADABLE}.
	 * @param next the value to store, or {@code null} to remove the entry
	 * @return whether it was unreadable and is now {@code next}
	 */
	static boolean replace(IMap<String, Object> map, String key, Predicate<Object> foreign, @Nullable Object next) {
		try {
			if (!map.tryLock(key, LOCK_WAIT_MILLIS, TimeUnit.MILLISECONDS, LOCK_LEASE_MILLIS, TimeUnit.MILLISECONDS)) {
				return false;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		try {
			if (read(map, key, foreign) != UNREADABLE) {
				return false;
			}
			if (next == null) {
				map.delete(key);
			}
			else {
				map.set(key, next);
			}
			return true;
		}
		finally {
			map.unlock(key);
		}
	}

}
