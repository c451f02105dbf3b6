"""The learned extractor (ADR 0078): a CRF sequence tagger trained on the repo's labelled statements.

``tokens`` cuts a statement into tokens (jieba for Han runs, a word pattern for the rest) with
their offsets and part-of-speech tags; ``features`` turns them into the tagger's features;
``labels`` aligns labelled items to BIO tags (training only); ``tagger`` runs the shipped model and
decodes spans into candidate claims; ``training`` trains and cross-validates (scripts/train_extractor.py).
"""
