package dev.retrykit.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * Tells whether the member id a circuit message claims is a registered member's (in the members' sorted
 * set): by one {@code ZSCORE} per id, whose answer is kept until the next heartbeat. Between two
 * heartbeats at most {@value #LOOKUPS_PER_HEARTBEAT} ids are looked up; further unknown ids count as
 * unregistered without a lookup. So a flood of messages claiming made-up ids costs the shared command
 * connection at most that many lookups per sync interval, and a replica that joins is recognised from its
 * first message (its publishing script registers it first). Thread-safe.
 */
final class MemberCheck {

	/** The sender of a message whose id names no registered member, or that has no id. */
	static final String UNREGISTERED = dev.retrykit.spi.CircuitSignal.UNREGISTERED_SENDER;

	/** How many distinct ids are looked up between two heartbeats. */
	static final int LOOKUPS_PER_HEARTBEAT = 64;

	private static final CompletableFuture<String> UNREGISTERED_SENDER = CompletableFuture.completedFuture(UNREGISTERED);

	private final String membersKey;

	private final String localMember;

	private final RedisAsyncCommands<String, byte[]> commands;

	/** The ids looked up since the last heartbeat, with whether they are registered. */
	private final Map<String, CompletableFuture<Boolean>> verdicts = new ConcurrentHashMap<>();

	MemberCheck(String membersKey, String localMember, RedisAsyncCommands<String, byte[]> commands) {
		this.membersKey = membersKey;
		this.localMember = localMember;
		this.commands = commands;
	}

	/** @return the sender to deliver a message claiming {@code claimed} with: that id if registered, else {@link #UNREGISTERED} */
	CompletableFuture<String> sender(String claimed) {
		if (claimed.equals(this.localMember)) {
			return CompletableFuture.completedFuture(claimed);
		}
		CompletableFuture<Boolean> verdict = this.verdicts.get(claimed);
		if (verdict == null) {
			if (this.verdicts.size() >= LOOKUPS_PER_HEARTBEAT) {
				return UNREGISTERED_SENDER;
			}
			verdict = this.verdicts.computeIfAbsent(claimed, this::lookUp);
		}
		return verdict.thenApply(registered -> registered ? claimed : UNREGISTERED);
	}

	private CompletableFuture<Boolean> lookUp(String id) {
		return this.commands.zscore(this.membersKey, id.getBytes(StandardCharsets.UTF_8)).toCompletableFuture()
			.handle((score, failure) -> score != null);
	}

	/** Forgets the answers: the next message of each id is looked up again. */
	void heartbeat() {
		this.verdicts.clear();
	}

}
