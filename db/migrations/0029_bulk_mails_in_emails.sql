ALTER TABLE `emails` ADD `bulk_email_id` integer;--> statement-breakpoint
ALTER TABLE `emails` ADD `merge_values` text;--> statement-breakpoint
ALTER TABLE `bulk_emails` ADD `rendered_html` text;--> statement-breakpoint
ALTER TABLE `bulk_emails` ADD `rendered_text` text;