"""Text handling: Chinese-aware segmentation (jieba) and safe FTS5 query building."""
