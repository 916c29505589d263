package dev.retrykit.migrate;

import org.openrewrite.Column;
import org.openrewrite.DataTable;
import org.openrewrite.Recipe;

/**
 * The data table of what a migration recipe left unchanged because it has no faithful retrykit mapping: one row
 * per element, with the reason (the same text as the comment the recipe puts next to it).
 */
public final class UnmappedElements extends DataTable<UnmappedElements.Row> {

	/**
	 * Creates the table of a recipe.
	 * @param recipe the recipe that fills it
	 */
	public UnmappedElements(Recipe recipe) {
		super(recipe, "Elements left for a human", "What the recipe left unchanged because it has no faithful retrykit mapping.");
	}

	/**
	 * One element left unchanged.
	 * @param sourcePath the file
	 * @param element what was left (an annotation, a type, a property)
	 * @param reason why it has no faithful mapping
	 */
	public record Row(
			@Column(displayName = "Source path", description = "The file that holds the element.") String sourcePath,
			@Column(displayName = "Element", description = "The annotation, type or property left unchanged.") String element,
			@Column(displayName = "Reason", description = "Why it has no faithful retrykit mapping.") String reason) {
	}

}
