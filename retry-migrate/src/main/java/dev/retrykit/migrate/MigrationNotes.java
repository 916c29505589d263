package dev.retrykit.migrate;

import java.util.List;

import org.openrewrite.java.tree.Comment;
import org.openrewrite.java.tree.Space;
import org.openrewrite.java.tree.TextComment;
import org.openrewrite.marker.Markers;

/**
 * The comments the recipes leave next to what they could not migrate. Each starts with {@link #MARKER}, so a
 * second run recognises its own note and adds no other (the recipes are idempotent).
 */
final class MigrationNotes {

	/** The start of every note. */
	static final String MARKER = "retrykit-migrate:";

	private MigrationNotes() {
	}

	/**
	 * Adds a line comment with the note in front of an element whose prefix is {@code prefix}.
	 * @param prefix the element's prefix
	 * @param reason why the element is left unchanged
	 * @return the prefix with the note, or {@code prefix} itself when it already has a note
	 */
	static Space withNote(Space prefix, String reason) {
		if (hasNote(prefix)) {
			return prefix;
		}
		String whitespace = prefix.getWhitespace();
		String indent = whitespace.substring(whitespace.lastIndexOf('\n') + 1);
		String before = whitespace.contains("\n") ? whitespace : "";
		Comment note = new TextComment(false, " " + MARKER + " " + reason, "\n" + indent, Markers.EMPTY);
		List<Comment> comments = new java.util.ArrayList<>(prefix.getComments());
		comments.add(note);
		if (prefix.getComments().isEmpty()) {
			return Space.build(before, comments);
		}
		return prefix.withComments(comments);
	}

	/**
	 * @param prefix an element's prefix
	 * @return whether it carries a note of this migration already
	 */
	static boolean hasNote(Space prefix) {
		return prefix.getComments().stream()
			.anyMatch((comment) -> comment instanceof TextComment text && text.getText().contains(MARKER));
	}

}
